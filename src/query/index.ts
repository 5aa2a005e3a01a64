/**
 * The query engine: every endpoint's data goes through here. A QueryBuilder dictionary is validated
 * (parseQueryDict), compiled to a SQL AST (compile) and rendered for the storage's dialect.
 */
import type { Database, Dialect, SqlRow, SqlStatement } from '../storage/types.js';
import { compile } from './compile.js';
import { decodeRow, type ResultRow } from './decode.js';
import type { QueryDict } from './model.js';
import type { Select } from './sql-ast.js';
import { renderPostgres, renderPostgresCount } from './render-postgres.js';
import { renderSqlite, renderSqliteCount } from './render-sqlite.js';

export { parseQueryDict } from './parse.js';
export { DEFAULT_LIMITS, QueryValidationError, type QueryDict, type QueryLimits } from './model.js';
export type { ResultRow } from './decode.js';

export interface CompiledQuery {
  select: SqlStatement;
  count: SqlStatement;
  decodeRow(row: SqlRow): ResultRow;
}

/** How to run a query, beyond what it asks for. */
export interface PlanHints {
  /**
   * The rows wanted are a large share of the table: read them in the order asked for and stop after the
   * window, instead of finding all of them through a filter's index and sorting (SQLite's planner cannot tell
   * the two apart; PostgreSQL's can, from its statistics).
   */
  orderedScan?: boolean;
}

export function compileQuery(q: QueryDict, dialect: Dialect, hints: PlanHints = {}): CompiledQuery {
  const compiled = compile(q);
  const [select, count] =
    dialect === 'postgres'
      ? [renderPostgres, renderPostgresCount]
      : [(s: Select) => renderSqlite(s, hints), renderSqliteCount];
  return {
    select: select(compiled.select),
    count: count(compiled.count),
    decodeRow: (row) => decodeRow(row, compiled.decoders),
  };
}

export async function runQuery(db: Database, q: QueryDict, hints?: PlanHints): Promise<ResultRow[]> {
  const compiled = compileQuery(q, db.dialect, hints);
  const rows = await db.all(compiled.select);
  return rows.map(compiled.decodeRow);
}

export async function countQuery(db: Database, q: QueryDict): Promise<number> {
  const compiled = compileQuery(q, db.dialect);
  const rows = await db.all(compiled.count);
  return Number(rows[0]?.n ?? 0);
}
