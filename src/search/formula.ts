/**
 * Chemical formulas as the search index keeps them and as a query names them: a node's reduced formula (AiiDA's
 * `hill_compact`, the same whichever order a formula is written in) and its elements, from a StructureData's
 * kinds and sites or a CifData's `formulae` attribute; and whether a word of a query is a formula.
 */
import { atomicNumber } from '../domain/formats/elements.js';
import { formula, structureFormula, type Kind } from '../domain/structure.js';

export interface Composition {
  /** The reduced formula (hill_compact), or null where none can be written (fractional counts). */
  formula: string | null;
  /** The element symbols, sorted. */
  elements: string[];
}

/** Most atoms a formula is written out with: counts beyond it are a data set, not a formula to search. */
const MOST_ATOMS = 10_000;

const isElement = (symbol: string) => atomicNumber(symbol) !== undefined;

/**
 * A StructureData's composition from its kinds and the number of sites of each kind (what SQLite reads out of
 * its attributes, so that the positions are never parsed here); undefined for values no structure has.
 */
export function structureComposition(kinds: unknown, sitesPerKind: unknown): Composition | undefined {
  try {
    if (!Array.isArray(kinds) || typeof sitesPerKind !== 'object' || sitesPerKind === null) return undefined;
    const counts = Object.entries(sitesPerKind as Record<string, number>);
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    if (total === 0) return undefined;
    const byName = new Map((kinds as Kind[]).map((k) => [k.name, k]));
    const elements = new Set<string>();
    for (const [name] of counts) {
      for (const symbol of byName.get(name)?.symbols ?? []) if (isElement(symbol)) elements.add(symbol);
    }
    let reduced: string | null = null;
    if (total <= MOST_ATOMS) {
      const sites = counts.flatMap(([name, n]) =>
        Array.from({ length: n }, () => ({ kind_name: name, position: [] })),
      );
      reduced = structureFormula(
        { cell: [], pbc: [true, true, true], kinds: kinds as Kind[], sites },
        'hill_compact',
      );
    }
    return { formula: reduced, elements: [...elements].sort() };
  } catch {
    return undefined;
  }
}

/** Counts of a formula written as symbols and numbers (`Ga4 As4`, `SiO2`, `C6H12O6`), or undefined. */
export function formulaCounts(text: string): Map<string, number> | undefined {
  const compact = text.replace(/\s+/g, '');
  if (!/^(?:[A-Z][a-z]?(?:\d+(?:\.\d+)?)?)+$/.test(compact)) return undefined;
  const counts = new Map<string, number>();
  for (const [, symbol, count] of compact.matchAll(/([A-Z][a-z]?)(\d+(?:\.\d+)?)?/g)) {
    if (!isElement(symbol!)) return undefined;
    counts.set(symbol!, (counts.get(symbol!) ?? 0) + (count === undefined ? 1 : Number(count)));
  }
  return counts;
}

/** The reduced formula of counts (hill_compact), or null for fractional or very large counts. */
export function reducedFormula(counts: Map<string, number>): string | null {
  const values = [...counts.values()];
  if (!values.every(Number.isInteger) || values.reduce((a, b) => a + b, 0) > MOST_ATOMS) return null;
  const symbols: string[] = [];
  for (const [symbol, n] of counts) for (let i = 0; i < n; i++) symbols.push(symbol);
  return formula(symbols, 'hill_compact');
}

/** A CifData's composition from its `formulae` attribute (the CIF's `_chemical_formula_sum`). */
export function cifComposition(formulae: unknown): Composition | undefined {
  const first = Array.isArray(formulae) ? formulae.find((f) => typeof f === 'string') : undefined;
  if (typeof first !== 'string') return undefined;
  const counts = formulaCounts(first);
  if (counts === undefined || counts.size === 0) return undefined;
  return { formula: reducedFormula(counts), elements: [...counts.keys()].sort() };
}

/** The reduced formula a word of a query names (`GaAs`, `SiO2`), or undefined for a word that is none. */
export function queryFormula(word: string): string | undefined {
  const counts = formulaCounts(word);
  if (counts === undefined || counts.size === 0) return undefined;
  return reducedFormula(counts) ?? undefined;
}

export { isElement };
