/** The OPTIMADE filter as filter.peggy returns it, and the parse that turns grammar failures into 400s. */
import { parse, SyntaxError as FilterSyntaxError } from './filter-parser.generated.js';
import { OptimadeError } from './errors.js';
import { checkFilterText, checkFilterTree } from './filter-bounds.js';

/** A property name: its identifiers, more than one for a nested name (`a.b`). */
export type PropertyPath = string[];

export type Constant =
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string; value: number }
  | { kind: 'boolean'; value: boolean };

export type Value = Constant | { kind: 'property'; path: PropertyPath };

export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type FuzzyOp = 'CONTAINS' | 'STARTS' | 'ENDS';

/** An entry after HAS: a value compared by equality, or (an optional feature) with another operator. */
export interface ListEntry {
  op: ComparisonOp | FuzzyOp;
  value: Value;
}

export type FilterNode =
  | { type: 'or' | 'and'; items: FilterNode[] }
  | { type: 'not'; expr: FilterNode }
  | { type: 'compare'; left: Value; op: ComparisonOp; right: Value }
  | { type: 'bare'; property: PropertyPath }
  | { type: 'known'; property: PropertyPath; known: boolean }
  | { type: 'fuzzy'; property: PropertyPath; op: FuzzyOp; value: Value }
  | { type: 'has'; property: PropertyPath; mode: 'one' | 'all' | 'any' | 'only'; values: ListEntry[] }
  | { type: 'length'; property: PropertyPath; op: ComparisonOp; value: Value }
  | { type: 'zip'; properties: PropertyPath[]; mode: 'one' | 'all' | 'any' | 'only'; rows: ListEntry[][] };

/** The filter's tree; a filter that is not in the language is a 400 that says where it stops being one. */
export function parseFilter(text: string): FilterNode {
  checkFilterText(text);
  let tree: FilterNode;
  try {
    tree = parse(text, {}) as FilterNode;
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    const e = error as FilterSyntaxError & { location?: { start: { offset: number } } };
    const at = e.location?.start.offset ?? 0;
    const near = JSON.stringify(text.slice(at, at + 20));
    throw new OptimadeError(
      400,
      'Bad Request',
      `the filter is not in the OPTIMADE filter language at character ${at + 1} (${near}): ${e.message}`,
      'filter',
    );
  }
  checkFilterTree(tree);
  return tree;
}
