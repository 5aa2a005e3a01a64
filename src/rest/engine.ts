/** The REST layer's single door to the query engine: JSON QueryBuilder dictionaries in, rows out. */
import { countQuery, parseQueryDict, runQuery, type QueryLimits, type ResultRow } from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';

export async function queryRows(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  limits?: QueryLimits,
): Promise<ResultRow[]> {
  return runQuery(backend.db, parseQueryDict(dict, limits));
}

export async function queryCount(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  limits?: QueryLimits,
): Promise<number> {
  return countQuery(backend.db, parseQueryDict(dict, limits));
}
