/** StructureData knowledge: chemical formulae and dimensionality, computed as aiida's StructureData does. */

export interface Kind {
  name: string;
  symbols: string[];
  weights: number[];
  mass?: number;
}

export interface Site {
  kind_name: string;
  position: number[];
}

export interface Structure {
  cell: number[][];
  pbc: [boolean, boolean, boolean];
  kinds: Kind[];
  sites: Site[];
}

const SUM_THRESHOLD = 1e-6;

export function structureFromAttributes(a: Record<string, unknown>): Structure {
  return {
    cell: (a.cell as number[][]) ?? [],
    pbc: [a.pbc1 !== false, a.pbc2 !== false, a.pbc3 !== false] as [boolean, boolean, boolean],
    kinds: (a.kinds as Kind[]) ?? [],
    sites: (a.sites as Site[]) ?? [],
  };
}

export const hasVacancies = (k: Kind) => k.weights.reduce((s, w) => s + w, 0) < 1 - SUM_THRESHOLD;
export const isAlloy = (k: Kind) => k.symbols.length > 1;

/** A kind as a formula symbol: `Si`, or `{Au0.25Cu0.75}` for alloys and vacancies. */
export function kindSymbolString(kind: Kind): string {
  if (kind.symbols.length === 1 && !hasVacancies(kind)) return kind.symbols[0] as string;
  const pieces = kind.symbols.map((s, i) => `${s}${(kind.weights[i] ?? 0).toFixed(2)}`);
  if (hasVacancies(kind)) pieces.push(`X${(1 - kind.weights.reduce((a, b) => a + b, 0)).toFixed(2)}`);
  return `{${pieces.sort().join('')}}`;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Python's default string ordering, by code point. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** aiida's get_formula in the `hill` and `hill_compact` modes. */
export function formula(symbols: string[], mode: 'hill' | 'hill_compact' = 'hill'): string {
  const unique = [...new Set(symbols)];
  // Asked once, not at every comparison of the sort (a scan of the sites each).
  const hasCarbon = unique.includes('C');
  const key = (s: string) => (hasCarbon ? ({ C: '0', H: '1' }[s] ?? s) : s);
  unique.sort((a, b) => byCodePoint(key(a), key(b)));
  let counts = unique.map((s) => [symbols.filter((x) => x === s).length, s] as [number, string]);
  if (mode === 'hill_compact' && counts.length > 0) {
    const divisor = counts.map(([n]) => n).reduce(gcd);
    counts = counts.map(([n, s]) => [n / divisor, s]);
  }
  return counts.map(([n, s]) => `${s}${n === 1 ? '' : n}`).join('');
}

export function structureFormula(structure: Structure, mode: 'hill' | 'hill_compact' = 'hill'): string {
  const kinds = new Map(structure.kinds.map((k) => [k.name, kindSymbolString(k)]));
  return formula(
    structure.sites.map((s) => kinds.get(s.kind_name) ?? s.kind_name),
    mode,
  );
}

const cross = (a: number[], b: number[]) => [
  a[1]! * b[2]! - a[2]! * b[1]!,
  a[2]! * b[0]! - a[0]! * b[2]!,
  a[0]! * b[1]! - a[1]! * b[0]!,
];
const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const norm = (a: number[]) => Math.sqrt(dot(a, a));

const DIMENSION_LABELS = ['', 'length', 'surface', 'volume'];

/** aiida's get_dimensionality: how many periodic directions, and the length, area or volume they span. */
export function dimensionality(structure: Structure): { dim: number; label: string; value: number } {
  const periodic = structure.cell.filter((_, i) => structure.pbc[i]);
  const dim = periodic.length;
  let value = 0;
  if (dim === 1) value = norm(periodic[0]!);
  else if (dim === 2) value = norm(cross(periodic[0]!, periodic[1]!));
  else if (dim === 3)
    value = Math.abs(dot(structure.cell[0]!, cross(structure.cell[1]!, structure.cell[2]!)));
  return { dim, label: DIMENSION_LABELS[dim] as string, value };
}
