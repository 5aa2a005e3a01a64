/** The REST layer's single door to the query engine: JSON QueryBuilder dictionaries in, rows out. */
import {
  countQuery,
  DEFAULT_LIMITS,
  Param,
  planKey,
  prepareQuery,
  runQuery,
  type ParamValues,
  type PlanHints,
  type QueryLimits,
  type ResultRow,
} from '../query/index.js';
import { originOf } from '../storage/budgeted.js';
import type { StorageBackend } from '../storage/types.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { derivedFrom } from '../util/derived.js';
import { KeptMap } from '../util/kept-map.js';

export interface QueryOptions {
  limits?: QueryLimits;
  hints?: PlanHints;
  /** Values of the Params the dictionary holds. */
  values?: ParamValues;
}

/** The pk of the record a request is about, bound when the kept plan runs: `{ id: { '==': PK } }`. */
export const PK = new Param('pk');

export async function queryRows(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  { limits, hints, values }: QueryOptions = {},
): Promise<ResultRow[]> {
  return runQuery(backend.db, prepareQuery(dict, backend.db.dialect, limits, hints), values);
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
  dict: Record<string, unknown>,
  { limits = DEFAULT_LIMITS, values }: QueryOptions = {},
): Promise<number> {
  const dialect = backend.db.dialect;
  const key = planKey(dict, dialect, limits);
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
