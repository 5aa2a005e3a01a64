/**
 * Statements that read at most one row of one table through its primary key or its unique UUID. They cost
 * microseconds whatever the size of the data, so a backend may run them inline instead of handing them to a
 * worker thread (whose round trip costs more than the query).
 */
import type { Expr, Select } from './sql-ast.js';

const UNIQUE_COLUMNS = new Set(['id', 'uuid']);

function pins(e: Expr, alias: string): boolean {
  if (e.t === 'and') return e.items.some((item) => pins(item, alias));
  return (
    e.t === 'cmp' &&
    e.op === '=' &&
    e.left.t === 'col' &&
    e.left.alias === alias &&
    UNIQUE_COLUMNS.has(e.left.column) &&
    e.right.t === 'param'
  );
}

export function isPointLookup(select: Select): boolean {
  return (
    select.joins.length === 0 &&
    select.ctes.length === 0 &&
    select.where !== undefined &&
    pins(select.where, select.from.alias)
  );
}
