/** A crystal as the structure views draw it, read from StructureData attributes. Pure. */
import { isCell, isVec3, toFractional, type Cell, type Vec3 } from './cell.js';

export interface Site {
  kind: string;
  /** Element symbols of the site's kind (more than one for an alloy), with their weights. */
  symbols: string[];
  weights: number[];
  /** Cartesian position in Å. */
  position: Vec3;
  /** Fractional coordinates; undefined when the cell is singular. */
  fractional?: Vec3;
}

export interface Crystal {
  cell: Cell;
  pbc: [boolean, boolean, boolean];
  sites: Site[];
}

interface KindAttribute {
  name?: unknown;
  symbols?: unknown;
  weights?: unknown;
}

/** Reads StructureData attributes; throws an Error that says what is missing when they are not a structure. */
export function crystalFromAttributes(attributes: Record<string, unknown>): Crystal {
  const { cell, kinds, sites } = attributes;
  if (!isCell(cell)) throw new Error('the attributes have no 3×3 "cell"');
  if (!Array.isArray(kinds)) throw new Error('the attributes have no "kinds" list');
  if (!Array.isArray(sites)) throw new Error('the attributes have no "sites" list');
  const byName = new Map<string, { symbols: string[]; weights: number[] }>();
  for (const kind of kinds as KindAttribute[]) {
    if (typeof kind?.name !== 'string') continue;
    const symbols = Array.isArray(kind.symbols) ? kind.symbols.map(String) : [kind.name];
    const weights =
      Array.isArray(kind.weights) && kind.weights.length === symbols.length
        ? kind.weights.map(Number)
        : symbols.map(() => 1 / symbols.length);
    byName.set(kind.name, { symbols, weights });
  }
  const out: Site[] = [];
  for (const [i, site] of (sites as Array<{ kind_name?: unknown; position?: unknown }>).entries()) {
    const kind = String(site?.kind_name ?? '');
    if (!isVec3(site?.position)) throw new Error(`site ${i + 1} has no position`);
    const known = byName.get(kind);
    if (!known) throw new Error(`site ${i + 1} is of kind "${kind}", which the kinds do not list`);
    out.push({ kind, ...known, position: site.position, fractional: toFractional(cell, site.position) });
  }
  const pbc: [boolean, boolean, boolean] = [
    attributes.pbc1 !== false,
    attributes.pbc2 !== false,
    attributes.pbc3 !== false,
  ];
  return { cell, pbc, sites: out };
}

/** The symbol a site is drawn as: its heaviest-weighted element ("X" for a vacancy-only site). */
export function mainSymbol(site: Site): string {
  let best = -1;
  let symbol = 'X';
  site.symbols.forEach((s, i) => {
    const w = site.weights[i] ?? 0;
    if (w > best) [best, symbol] = [w, s];
  });
  return symbol;
}

/** How a site's composition reads: "Si", or "Fe0.50Ni0.50" for an alloy, with "+vacancy" when weights sum < 1. */
export function siteComposition(site: Site): string {
  if (site.symbols.length === 1 && (site.weights[0] ?? 1) >= 1 - 1e-6) return site.symbols[0] ?? 'X';
  const parts = site.symbols.map((s, i) => `${s}${(site.weights[i] ?? 0).toFixed(2)}`);
  const total = site.weights.reduce((a, b) => a + b, 0);
  if (total < 1 - 1e-6) parts.push('+vacancy');
  return parts.join('');
}

/**
 * The Hill formula of a list of element symbols (C, then H, then alphabetical; alphabetical when there is no C),
 * as AiiDA's get_formula(mode="hill") writes it: counts of 1 are left out.
 */
export function hillFormula(symbols: string[]): string {
  const counts = new Map<string, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  const names = [...counts.keys()].sort();
  const order = counts.has('C') ? ['C', ...(counts.has('H') ? ['H'] : [])] : [];
  const rest = names.filter((n) => !order.includes(n));
  return [...order, ...rest].map((n) => (counts.get(n) === 1 ? n : `${n}${counts.get(n)}`)).join('');
}
