/** The REST layer's single door to the query engine: JSON QueryBuilder dictionaries in, rows out. */
import {
  countQuery,
  parseQueryDict,
  runQuery,
  type PlanHints,
  type QueryLimits,
  type ResultRow,
} from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';

export async function queryRows(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  limits?: QueryLimits,
  hints?: PlanHints,
): Promise<ResultRow[]> {
  return runQuery(backend.db, parseQueryDict(dict, limits), hints);
}

/**
 * Counts kept per storage: the same page of a large listing asks for the same count again and again. An
 * archive never changes; a live database's counts are kept while its data version stays the same.
 */
const COUNTS_KEPT = 5_000;
const counts = new WeakMap<StorageBackend, { version: string; kept: Map<string, Promise<number>> }>();

export async function queryCount(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  limits?: QueryLimits,
): Promise<number> {
  const count = () => countQuery(backend.db, parseQueryDict(dict, limits));
  const version = backend.dataVersion
    ? await backend.dataVersion()
    : backend.kind === 'archive'
      ? ''
      : undefined;
  if (version === undefined) return count();
  let cache = counts.get(backend);
  if (!cache || cache.version !== version) counts.set(backend, (cache = { version, kept: new Map() }));
  const kept = cache.kept;
  const key = JSON.stringify(dict);
  let value = kept.get(key);
  if (!value) {
    if (kept.size >= COUNTS_KEPT) kept.delete(kept.keys().next().value as string);
    value = count();
    kept.set(key, value);
    value.catch(() => kept.delete(key));
  }
  return value;
}
