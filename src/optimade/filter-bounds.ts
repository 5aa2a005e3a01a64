/**
 * The bounds a filter is held to before it runs, each a 400 that names it: what SQLite and the parser can take
 * (a chain of 999 terms passes SQLite's expression depth, 2,700 parentheses the parser's stack), and what a
 * filter may cost (every HAS on a list other than `elements`, and every substring test inside one, reads each
 * structure's list: a few dozen of them keep a query process busy for seconds and the other requests waiting).
 */
import { OptimadeError } from './errors.js';
import type { FilterNode } from './filter-ast.js';

export const FILTER_BOUNDS = {
  /** Characters of the filter's text. */
  characters: 4096,
  /** Parentheses open at once. */
  depth: 32,
  /** Comparisons (each IS KNOWN, HAS, LENGTH, comparison or substring test counts one). */
  terms: 64,
  /** Values after HAS, in all. */
  values: 64,
  /** Values after HAS on lists read structure by structure (every list but `elements`), in all. */
  listValues: 16,
  /**
   * Those values times the structures of the source: each value reads every structure's list (about 1.4 s per
   * 10^6 on a loaded core), so a source of 10^6 structures takes 2 of them, one of 10^5 the 16 above.
   */
  listReads: 2_000_000,
};

const refuse = (what: string) =>
  new OptimadeError(400, 'Bad Request', `the filter is too large: ${what}; write a smaller one`, 'filter');

/** The text's bounds, checked before it is parsed. */
export function checkFilterText(text: string): void {
  if (text.length > FILTER_BOUNDS.characters)
    throw refuse(`${text.length} characters, past the bound of ${FILTER_BOUNDS.characters}`);
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i += 1;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(' && ++depth > FILTER_BOUNDS.depth)
      throw refuse(`parentheses nested more than ${FILTER_BOUNDS.depth} deep`);
    else if (c === ')') depth -= 1;
  }
}

/** The values after HAS on lists other than `elements` (each a read of every structure's list). */
export function listValuesOf(tree: FilterNode): number {
  if (tree.type === 'or' || tree.type === 'and') return tree.items.reduce((n, i) => n + listValuesOf(i), 0);
  if (tree.type === 'not') return listValuesOf(tree.expr);
  return tree.type === 'has' && tree.property.join('.') !== 'elements' ? tree.values.length : 0;
}

/** The filter's cost on a source of `structures`: past FILTER_BOUNDS.listReads, a 400 before it runs. */
export function checkFilterCost(listValues: number, structures: number): void {
  const most = Math.max(1, Math.floor(FILTER_BOUNDS.listReads / Math.max(1, structures)));
  if (listValues <= most) return;
  throw refuse(
    `${listValues} values after HAS on lists other than elements, each read from all ${structures} structures; this source takes ${most} at most`,
  );
}

/** The parsed filter's bounds: terms and values, counted over the whole tree. */
export function checkFilterTree(tree: FilterNode): void {
  let terms = 0;
  let values = 0;
  let listValues = 0;
  const walk = (n: FilterNode): void => {
    if (n.type === 'or' || n.type === 'and') return n.items.forEach(walk);
    if (n.type === 'not') return walk(n.expr);
    terms += 1;
    if (n.type === 'has') {
      values += n.values.length;
      if (n.property.join('.') !== 'elements') listValues += n.values.length;
    }
    if (n.type === 'zip') values += n.rows.length;
  };
  walk(tree);
  if (terms > FILTER_BOUNDS.terms)
    throw refuse(`${terms} comparisons, past the bound of ${FILTER_BOUNDS.terms}`);
  if (values > FILTER_BOUNDS.values)
    throw refuse(`${values} values after HAS, past the bound of ${FILTER_BOUNDS.values}`);
  if (listValues > FILTER_BOUNDS.listValues)
    throw refuse(
      `${listValues} values after HAS on lists other than elements (each reads every structure's list), past the bound of ${FILTER_BOUNDS.listValues}`,
    );
}
