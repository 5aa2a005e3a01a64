/**
 * Chemistry the lists show: a structure's or CIF's formula, from the few attributes a list asks the API for
 * (`kinds` and `sites` of a StructureData, `formulae` of a CifData), in Hill order as AiiDA writes it.
 */
import { hillFormula } from './by-type/logic/structure.js';

/** The attributes a list asks for, for every formula it shows. */
export const FORMULA_ATTRIBUTES = ['kinds', 'sites', 'formulae'];

/** Does a node of this type have a formula to show? */
export function hasFormula(nodeType: string): boolean {
  return nodeType.startsWith('data.core.structure.') || nodeType.startsWith('data.core.cif.');
}

interface Kind {
  name?: unknown;
  symbols?: unknown;
  weights?: unknown;
}

/** A kind as it reads in a formula: `Si`, or `{Au0.25Cu0.75}` for an alloy or a site with vacancies. */
function kindSymbol(kind: Kind): string | undefined {
  if (!Array.isArray(kind.symbols) || kind.symbols.length === 0) return undefined;
  const symbols = kind.symbols.map(String);
  const weights = Array.isArray(kind.weights) ? kind.weights.map(Number) : symbols.map(() => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  if (symbols.length === 1 && total >= 1 - 1e-6) return symbols[0];
  const pieces = symbols.map((s, i) => `${s}${(weights[i] ?? 0).toFixed(2)}`);
  if (total < 1 - 1e-6) pieces.push(`X${(1 - total).toFixed(2)}`);
  // In alphabetical order, as AiiDA writes a kind's symbols string.
  return `{${pieces.sort().join('')}}`;
}

/** The formula of a node from its attributes, or undefined when they do not give one. */
export function formulaOf(attributes: Record<string, unknown> | null | undefined): string | undefined {
  if (!attributes) return undefined;
  const { kinds, sites, formulae } = attributes;
  if (Array.isArray(formulae)) {
    const written = formulae.filter((f): f is string => typeof f === 'string' && f.trim() !== '');
    return written.length > 0 ? written.map(writtenFormula).join(', ') : undefined;
  }
  if (!Array.isArray(kinds) || !Array.isArray(sites) || sites.length === 0) return undefined;
  const byName = new Map<string, string>();
  for (const kind of kinds as Kind[]) {
    const symbol = kindSymbol(kind);
    if (typeof kind?.name === 'string' && symbol !== undefined) byName.set(kind.name, symbol);
  }
  const symbols: string[] = [];
  for (const site of sites as { kind_name?: unknown }[]) {
    const symbol = byName.get(String(site?.kind_name));
    if (symbol === undefined) return undefined;
    symbols.push(symbol);
  }
  return hillFormula(symbols);
}

/**
 * A formula as a CIF writes it (`Mo1 S2`, `O3 Ti Ba`) in the Hill order of every other formula shown (`MoS2`,
 * `BaO3Ti`); one that is not a list of elements and counts stays as written.
 */
export function writtenFormula(formula: string): string {
  const words = formula.trim().split(/\s+/);
  const counts = new Map<string, number>();
  for (const word of words) {
    const match = /^([A-Z][a-z]?)(\d+(?:\.\d+)?)?$/.exec(word);
    if (match === null) return formula.trim();
    counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2] ?? 1));
  }
  const names = [...counts.keys()].sort();
  const first = counts.has('C') ? ['C', ...(counts.has('H') ? ['H'] : [])] : [];
  return [...first, ...names.filter((n) => !first.includes(n))]
    .map((n) => (counts.get(n) === 1 ? n : `${n}${counts.get(n)}`))
    .join('');
}

/** A formula as text and subscripts: `Si2O4` → Si, 2, O, 4 (counts apart, for <sub>). */
export function formulaParts(formula: string): { text: string; sub: boolean }[] {
  const parts: { text: string; sub: boolean }[] = [];
  // Counts follow an element or a closing brace; the weights inside an alloy's braces stay as they are.
  const pattern = /(\{[^}]*\}|[A-Z][a-z]?|[^A-Z{\d]+)(\d+(?:\.\d+)?)?/g;
  let match: RegExpExecArray | null;
  let last = 0;
  while ((match = pattern.exec(formula)) !== null) {
    if (match.index > last) parts.push({ text: formula.slice(last, match.index), sub: false });
    parts.push({ text: match[1]!, sub: false });
    if (match[2] !== undefined) parts.push({ text: match[2], sub: true });
    last = pattern.lastIndex;
  }
  if (last < formula.length) parts.push({ text: formula.slice(last), sub: false });
  return parts;
}
