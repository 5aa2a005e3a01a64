/**
 * A small SQL AST: what the compiler produces and each dialect renders. Values only ever appear as `param`
 * nodes (bound parameters, or quoted text where SQLite plans by the value: render-sqlite.ts); identifiers only
 * come from the schema tables.
 */

export type JsonMode = 'json' | 'value' | 'type' | 'length';

export type Expr =
  | { t: 'col'; alias: string; column: string }
  /** A value inside a JSON column: as JSON text, as an SQL value, its JSON type name, or its array length. */
  | { t: 'json'; alias: string; column: string; path: string[]; mode: JsonMode }
  | { t: 'param'; value: unknown }
  | { t: 'const'; value: 'TRUE' | 'FALSE' | 'NULL' }
  | { t: 'cmp'; op: '=' | '<>' | '<' | '<=' | '>' | '>='; left: Expr; right: Expr }
  | { t: 'and' | 'or'; items: Expr[] }
  | { t: 'not'; item: Expr }
  | { t: 'isnull'; item: Expr }
  | { t: 'in'; item: Expr; values: Expr[] }
  | { t: 'like'; item: Expr; pattern: Expr; caseInsensitive: boolean }
  | { t: 'cast'; item: Expr; to: 'real' | 'integer' | 'text' | 'boolean' }
  /** JSON array at a path contains a scalar element. */
  | { t: 'jsonArrayHas'; alias: string; column: string; path: string[]; value: unknown }
  | { t: 'agg'; fn: 'count' | 'max' | 'min' | 'sum'; item: Expr };

export interface Join {
  kind: 'inner' | 'left';
  table: string;
  alias: string;
  on: Expr;
}

/** A recursive walk over provenance links, seeded from the nodes one vertex selects. */
export interface WalkCte {
  name: string;
  direction: 'down' | 'up';
  seed: Select;
  linkTypes: string[];
  maxDepth: number;
}

export interface Select {
  ctes: WalkCte[];
  distinct: boolean;
  columns: { expr: Expr; as: string }[];
  from: { table: string; alias: string };
  joins: Join[];
  where?: Expr;
  orderBy: { expr: Expr; desc: boolean }[];
  limit?: number;
  offset?: number;
}
