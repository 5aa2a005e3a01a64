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

export interface QueryLimits {
  maxVertices: number;
  maxInList: number;
  maxProjections: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxVertices: 12, maxInList: 10_000, maxProjections: 200 };

export class QueryValidationError extends Error {
  readonly status = 400;
  override name = 'QueryValidationError';
}
