/** The typed form of a QueryBuilder dictionary, after validation. */
import type { EntityKind } from './schema.js';

/** A column, or a path into a JSON column (`attributes.a.b` -> column `attributes`, path ['a', 'b']). */
export interface FieldRef {
  column: string;
  path: string[];
}

export type Operator =
  | '=='
  | 'in'
  | 'like'
  | 'ilike'
  | '<'
  | '<='
  | '>'
  | '>='
  | 'of_type'
  | 'of_length'
  | 'longer'
  | 'shorter'
  | 'contains'
  | 'has_key';

export type FilterNode =
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'cmp'; field: FieldRef; op: Operator; value: unknown };

/** Letters of the QueryBuilder's casts: float, int, text, bool, JSON, datetime. */
export type Cast = 'f' | 'i' | 't' | 'b' | 'j' | 'd';

export type Projection =
  | { kind: 'entity'; key: '*' }
  | { kind: 'all' }
  | { kind: 'field'; key: string; field: FieldRef; cast?: Cast; func?: 'count' | 'max' | 'min' | 'sum' };

export type JoinKeyword =
  | 'with_incoming'
  | 'with_outgoing'
  | 'with_ancestors'
  | 'with_descendants'
  | 'with_node'
  | 'with_group'
  | 'with_user'
  | 'with_computer'
  | 'with_comment'
  | 'with_log';

export const JOIN_KEYWORDS: readonly JoinKeyword[] = [
  'with_incoming',
  'with_outgoing',
  'with_ancestors',
  'with_descendants',
  'with_node',
  'with_group',
  'with_user',
  'with_computer',
  'with_comment',
  'with_log',
];

/** What an edge tag stands for: a link row, a group membership row, the ancestry walk, or nothing queryable. */
export type EdgeKind = 'link' | 'group_node' | 'walk' | 'none';

export interface Vertex {
  tag: string;
  kind: Exclude<EntityKind, 'link' | 'group_node'>;
  typeFilter?: FilterNode;
  join?: { keyword: JoinKeyword; target: string; edgeTag: string; edgeKind: EdgeKind; outer: boolean };
}

export interface OrderItem {
  tag: string;
  field: FieldRef;
  desc: boolean;
  cast?: Cast;
}

export interface QueryDict {
  vertices: Vertex[];
  filters: Map<string, FilterNode>;
  projections: Map<string, Projection[]>;
  order: OrderItem[];
  limit?: number;
  offset?: number;
  distinct: boolean;
}

/**
 * Bounds on what one query may ask for: every input is refused with a 400 that names the bound before it can
 * exhaust the JavaScript stack, SQLite's parser or PostgreSQL's. The first three are server options
 * (`--max-vertices`, `--max-in-list`); all are listed in docs/compatibility.md.
 */
export interface QueryLimits {
  maxVertices: number;
  /** Values of one `in` list. */
  maxInList: number;
  maxProjections: number;
  /** Levels of `and`/`or` lists inside one tag's filters (the recursion of the parser and compiler). */
  maxFilterDepth: number;
  /** Levels of arrays and objects inside one filter value (`==` or `contains` of a JSON document). */
  maxValueDepth: number;
  /** Characters of a `like`/`ilike` pattern (SQLite refuses patterns past 50,000 bytes, 3 bytes a character here). */
  maxPatternLength: number;
}

export const DEFAULT_LIMITS: QueryLimits = {
  maxVertices: 12,
  maxInList: 10_000,
  maxProjections: 200,
  maxFilterDepth: 32,
  maxValueDepth: 32,
  maxPatternLength: 10_000,
};

/**
 * Levels of arrays and objects in a whole QueryBuilder body, checked before anything walks it: room for the
 * deepest filters and values the limits above allow (each `and` level is an object and an array), far below
 * what recursion over it can bear.
 */
export const MAX_BODY_DEPTH = 128;

/**
 * The largest count (limit, offset, perpage, in_limit, out_limit): JavaScript numbers are exact up to 2^53 - 1,
 * and both databases take it as a 64-bit LIMIT or OFFSET.
 */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/**
 * The range of AiiDA's whole-number columns (ids and foreign keys are PostgreSQL `integer`). A comparison with a
 * number outside it, or with a fraction, is decided by the compiler instead of being sent to a typed column.
 */
export const INT_COLUMN_RANGE = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

/**
 * Bound values of one SQL statement: SQLite refuses more than 32,766 (PostgreSQL 65,535); the answer names the
 * limit instead.
 */
export const MAX_BOUND_VALUES = 32_766;

export class QueryValidationError extends Error {
  readonly status = 400;
  override name = 'QueryValidationError';
}
