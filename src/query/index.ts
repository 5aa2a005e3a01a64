/**
 * The query engine: every endpoint's data goes through here. A QueryBuilder dictionary is validated
 * (parseQueryDict), compiled to a SQL AST (compile) and rendered for the storage's dialect; the result is
 * kept by the dictionary's identity (planKey), so a request of a known shape starts at the database.
 */
import type { Database, Dialect, SqlStatement } from '../storage/types.js';
import { compile, type Decoder } from './compile.js';
import { jsonRecords } from './json-records.js';
import { rowDecoder, type ResultRow } from './decode.js';
import { DEFAULT_LIMITS, type QueryDict, type QueryLimits } from './model.js';
import { bindParams, type ParamValues } from './params.js';
import { parseQueryDict } from './parse.js';
import { KeptMap } from '../util/kept-map.js';
import { planKey } from './plan-cache.js';
import type { Select } from './sql-ast.js';
import { renderPostgres, renderPostgresCount } from './render-postgres.js';
import { renderSqlite, renderSqliteCount, sqliteValue } from './render-sqlite.js';

export { parseQueryDict } from './parse.js';
export {
  DEFAULT_LIMITS,
  MAX_BODY_DEPTH,
  MAX_COUNT,
  QueryValidationError,
  type QueryDict,
  type QueryLimits,
} from './model.js';
export { Param, type ParamValues } from './params.js';
export { nestingDepth, numberOf } from './validate.js';
export { jsonPlanKey, planKey } from './plan-cache.js';
export type { ResultRow } from './decode.js';
export { StoredDatetime } from './datetime.js';
export { writtenBetween } from './json-records.js';
export { liftedValues } from './lifted-values.js';

export interface CompiledQuery {
  select: SqlStatement;
  count: SqlStatement;
  /** Converts a bound value as the dialect's driver takes it. */
  convert(value: unknown): unknown;
  decodeRow(row: unknown[]): ResultRow;
  /**
   * SQLite only: the statement writing the answer's data for the answered `tags` as JSON, between two texts
   * bound first (src/query/json-records.ts), or undefined when SQLite cannot write them as the answer has them
   * (`dates`: whether it has the HTTP date function).
   */
  records?(tags: string[], dates: boolean): SqlStatement | undefined;
}

/** How to run a query, beyond what it asks for. */
export interface PlanHints {
  /**
   * The rows wanted are a large share of the table: read them in the order asked for and stop after the
   * window, instead of finding all of them through a filter's index and sorting (SQLite's planner cannot tell
   * the two apart; PostgreSQL's can, from its statistics).
   */
  orderedScan?: boolean;
  /**
   * The table of the nodes' (node_type, ctime, id) in the order of a page of one node type by -ctime (an
   * archive's copy has one): such a page is read from it, not sorted from all the nodes of the type. Only the
   * statements the hint is given for name it, so no other statement's plan or row order changes.
   */
  nodeTypeOrder?: string;
}

export function compileQuery(q: QueryDict, dialect: Dialect, hints: PlanHints = {}): CompiledQuery {
  const compiled = compile(q);
  const [select, count, convert] =
    dialect === 'postgres'
      ? [renderPostgres, renderPostgresCount, (v: unknown) => v]
      : [(s: Select) => renderSqlite(s, hints), renderSqliteCount, sqliteValue];
  const selectStatement = select(compiled.select);
  return {
    select: selectStatement,
    count: count(compiled.count),
    convert,
    decodeRow: rowDecoder(
      compiled.decoders,
      compiled.select.columns.map((c) => c.as),
    ),
    ...(dialect === 'postgres' ? {} : { records: recordsOf(selectStatement, compiled.decoders) }),
  };
}

/** The JSON records' statement of each list of answered tags, made when first asked (most plans never are). */
function recordsOf(select: SqlStatement, decoders: Decoder[]) {
  const made = new Map<string, SqlStatement | undefined>();
  return (tags: string[], dates: boolean) => {
    const key = `${dates}\u0000${tags.join('\u0000')}`;
    if (!made.has(key)) made.set(key, jsonRecords(select, decoders, tags, dates));
    return made.get(key);
  };
}

/** Enough for every shape the REST layer makes, with room for clients' own QueryBuilder dictionaries. */
const PLANS_KEPT = 2_000;
const plans = new KeptMap<CompiledQuery>(PLANS_KEPT);

/**
 * The compiled form of a QueryBuilder dictionary, validated and compiled once per identity (`key`, from
 * planKey, when the caller has it already). A dictionary that fails validation is refused every time.
 */
export function prepareQuery(
  dict: unknown,
  dialect: Dialect,
  limits: QueryLimits = DEFAULT_LIMITS,
  hints?: PlanHints,
  key = planKey(dict, dialect, limits, hints),
): CompiledQuery {
  const kept = plans.get(key);
  if (kept !== undefined) {
    planUse.hits++;
    return kept;
  }
  planUse.misses++;
  return plans.set(key, compileQuery(parseQueryDict(dict, limits), dialect, hints));
}

/** Lookups of compiled plans found kept (hits) or compiled anew (misses), since the process started. */
const planUse = { hits: 0, misses: 0 };

export function planCacheUse(): Readonly<{ hits: number; misses: number }> {
  return planUse;
}

/** The statement with its Params bound to `values`. */
export function bound(statement: SqlStatement, compiled: CompiledQuery, values?: ParamValues): SqlStatement {
  const params = bindParams(statement.params, values, compiled.convert);
  return params === statement.params ? statement : { ...statement, params };
}

export async function runQuery(
  db: Database,
  compiled: CompiledQuery,
  values?: ParamValues,
): Promise<ResultRow[]> {
  const rows = await db.values(bound(compiled.select, compiled, values));
  return rows.map(compiled.decodeRow);
}

export async function countQuery(
  db: Database,
  compiled: CompiledQuery,
  values?: ParamValues,
): Promise<number> {
  const rows = await db.values(bound(compiled.count, compiled, values));
  return Number(rows[0]?.[0] ?? 0);
}
