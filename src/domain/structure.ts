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

/**
 * Attributes that are not a structure AiiDA could have stored (a cell that is not three vectors, kinds that are
 * not a list, a site without a position): one line saying what is wrong. A 400 wherever it reaches an answer.
 */
export class StructureShapeError extends Error {
  override name = 'StructureShapeError';
  readonly status = 400;
  constructor(what: string) {
    super(`this StructureData's attributes are not a structure AiiDA stores: ${what}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumbers = (v: unknown, length?: number): v is number[] =>
  Array.isArray(v) && (length === undefined || v.length === length) && v.every((x) => typeof x === 'number');
/** Three vectors of three numbers, as AiiDA stores a cell. */
export const isCell = (v: unknown): v is number[][] =>
  Array.isArray(v) && v.length === 3 && v.every((row) => isNumbers(row, 3));
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A StructureData's attributes read as a structure, every one checked on the way: the one reader of them
 * (formulae, dimensionality, formats, OPTIMADE), so that no malformed node reaches a computation that assumes
 * the shape AiiDA writes. Throws StructureShapeError naming the first attribute that is wrong.
 */
export function structureFromAttributes(a: unknown): Structure {
  if (!isObject(a)) throw new StructureShapeError('they are not an object');
  const cell = a.cell;
  if (!isCell(cell)) throw new StructureShapeError('`cell` is not three vectors of three numbers');
  const kinds = a.kinds ?? [];
  if (!Array.isArray(kinds)) throw new StructureShapeError('`kinds` is not a list');
  kinds.forEach((k: unknown, i) => {
    if (!isObject(k) || typeof k.name !== 'string' || !isStrings(k.symbols) || !isNumbers(k.weights))
      throw new StructureShapeError(`kind ${i} is not a name with a list of symbols and one of weights`);
    if (k.mass !== undefined && k.mass !== null && typeof k.mass !== 'number')
      throw new StructureShapeError(`the mass of kind ${i} is not a number`);
  });
  const sites = a.sites ?? [];
  if (!Array.isArray(sites)) throw new StructureShapeError('`sites` is not a list');
  sites.forEach((site: unknown, i) => {
    if (!isObject(site) || typeof site.kind_name !== 'string' || !isNumbers(site.position, 3))
      throw new StructureShapeError(`site ${i} is not a kind name with a position of three numbers`);
  });
  return {
    cell: cell as number[][],
    pbc: [a.pbc1 !== false, a.pbc2 !== false, a.pbc3 !== false] as [boolean, boolean, boolean],
    kinds: kinds as Kind[],
    sites: sites as Site[],
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
  // Counted in one walk: a structure of many distinct kinds made a scan of the sites per kind take seconds.
  const tally = new Map<string, number>();
  for (const s of symbols) tally.set(s, (tally.get(s) ?? 0) + 1);
  const unique = [...tally.keys()];
  // Asked once, not at every comparison of the sort (a scan of the sites each).
  const hasCarbon = unique.includes('C');
  const key = (s: string) => (hasCarbon ? ({ C: '0', H: '1' }[s] ?? s) : s);
  unique.sort((a, b) => byCodePoint(key(a), key(b)));
  let counts = unique.map((s) => [tally.get(s)!, s] as [number, string]);
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
