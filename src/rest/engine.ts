/** The REST layer's single door to the query engine: JSON QueryBuilder dictionaries in, rows out. */
import {
  bound,
  countQuery,
  DEFAULT_LIMITS,
  jsonPlanKey,
  liftedValues,
  Param,
  planKey,
  prepareQuery,
  runQuery,
  type ParamValues,
  type PlanHints,
  type QueryLimits,
  type ResultRow,
  writtenBetween,
} from '../query/index.js';
import { originOf } from '../storage/budgeted.js';
import { sqliteWritesHttpDates } from '../storage/sqlite-extensions.js';
import type { StorageBackend } from '../storage/types.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { derivedFrom } from '../util/derived.js';
import { KeptMap } from '../util/kept-map.js';

export interface QueryOptions {
  limits?: QueryLimits;
  hints?: PlanHints;
  /** Values of the Params the dictionary holds. */
  values?: ParamValues;
  /** The dictionary is JSON (JSON.parse's output, a posted body): its plan is known by its JSON text. */
  json?: boolean;
}

/** The pk of the record a request is about, bound when the kept plan runs: `{ id: { '==': PK } }`. */
export const PK = new Param('pk');

/**
 * The dictionary a plan is kept for, the values to bind (the pks a posted body compares lifted out), and the
 * plan's key where the dictionary is JSON (otherwise prepareQuery's own).
 */
function shaped(
  dialect: StorageBackend['db']['dialect'],
  body: Record<string, unknown>,
  { limits = DEFAULT_LIMITS, hints, values, json }: QueryOptions,
): { dict: Record<string, unknown>; values: ParamValues | undefined; key: string | undefined } {
  const lifted = liftedValues(body);
  const key = json ? jsonPlanKey(lifted?.shape ?? body, dialect, limits, hints) : undefined;
  return lifted === undefined
    ? { dict: body, values, key }
    : { dict: lifted.dict, values: { ...values, ...lifted.values }, key };
}

export async function queryRows(
  backend: StorageBackend,
  body: Record<string, unknown>,
  options: QueryOptions = {},
): Promise<ResultRow[]> {
  const dialect = backend.db.dialect;
  const { dict, values, key } = shaped(dialect, body, options);
  return runQuery(backend.db, prepareQuery(dict, dialect, options.limits, options.hints, key), values);
}

/** Records' statements that met a value SQLite cannot write: their queries are answered the JavaScript way. */
const recordsRefused = new WeakSet<object>();

/** Texts an answer's data is written between: its envelope before and after it. */
export interface Envelope {
  head: string;
  tail: string;
}

const BARE: Envelope = { head: '', tail: '' };

/**
 * The answer's data for the answered `tags` written by SQLite (src/query/json-records.ts) between the texts of
 * `around`: `{"tag":[records],...}` as UTF-8 bytes, and the number of rows; undefined when the storage or the
 * query has no such statement, or a row holds a value SQLite cannot write as the answer has it (then the query
 * is answered from its rows).
 */
export async function queryRecords(
  backend: StorageBackend,
  body: Record<string, unknown>,
  tags: string[],
  options: QueryOptions = {},
  around: Envelope = BARE,
): Promise<{ bytes: Buffer; rows: number } | undefined> {
  const dialect = backend.db.dialect;
  const { dict, values, key } = shaped(dialect, body, options);
  const compiled = prepareQuery(dict, dialect, options.limits, options.hints, key);
  const records = compiled.records?.(tags, sqliteWritesHttpDates());
  if (records === undefined || recordsRefused.has(records)) return undefined;
  let row: unknown[] | undefined;
  try {
    [row] = await backend.db.values(
      writtenBetween(bound(records, compiled, values), around.head, around.tail),
    );
  } catch (error) {
    // A query process without the HTTP date function (its extension would not load there), or bytes stored
    // where text belongs (json_quote refuses them): answered from the rows.
    if (!/quarry_json_http_date|JSON cannot hold BLOB/.test(String((error as Error).message))) throw error;
    recordsRefused.add(records);
    return undefined;
  }
  // Bytes: a Buffer from this thread's connection, a Uint8Array from a query process.
  const written = row?.[0];
  const bytes =
    written instanceof Uint8Array
      ? Buffer.from(written.buffer, written.byteOffset, written.length)
      : undefined;
  if (bytes === undefined || bytes.includes(0)) {
    recordsRefused.add(records);
    return undefined;
  }
  return { bytes, rows: Number(row![1]) };
}

/**
 * The dictionary with a window (`offset` left out when not given). The windows of a frozen dictionary are
 * frozen and kept with it, so that each window's plan is known by its identity too.
 */
export function windowed(
  dict: Record<string, unknown>,
  limit: number,
  offset?: number,
): Record<string, unknown> {
  const make = () => deepFreeze({ ...dict, limit, ...(offset === undefined ? {} : { offset }) });
  return Object.isFrozen(dict) ? derivedFrom(dict, `${limit},${offset}`, make) : make();
}

/**
 * Counts kept per storage: the same page of a large listing asks for the same count again and again. An
 * archive never changes; a live database's counts are kept under the data version of the server that counted
 * (replicas may lag behind the primary: each version has its own), and old versions age out.
 */
const COUNTS_KEPT = 5_000;
const counts = new WeakMap<StorageBackend, KeptMap<Promise<number>>>();

export async function queryCount(
  backend: StorageBackend,
  body: Record<string, unknown>,
  options: QueryOptions = {},
): Promise<number> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const dialect = backend.db.dialect;
  const shape = shaped(dialect, body, { ...options, hints: undefined });
  const { dict, values } = shape;
  const key = shape.key ?? planKey(dict, dialect, limits);
  const count = () => countQuery(backend.db, prepareQuery(dict, dialect, limits, undefined, key), values);
  const version = backend.dataVersion
    ? await backend.dataVersion()
    : backend.kind === 'archive'
      ? ''
      : undefined;
  if (version === undefined) return count();
  const storage = originOf(backend);
  let kept = counts.get(storage);
  if (!kept) counts.set(storage, (kept = new KeptMap(COUNTS_KEPT)));
  const countKey = `${version}\u0002${key}${values === undefined ? '' : `\u0001${JSON.stringify(values)}`}`;
  let value = kept.get(countKey);
  if (!value) {
    value = kept.set(countKey, count());
    // A failure (a time limit, say) is not remembered.
    const map = kept;
    value.catch(() => map.delete(countKey));
  }
  return value;
}
