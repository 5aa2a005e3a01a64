/**
 * Node-wide summaries (statistics, type counts) cost a scan of the nodes table. An archive never changes while
 * it is served, so its summaries are computed once; a live database's are kept while its data version (a
 * cheap query) stays the same.
 */
import { originOf } from '../storage/budgeted.js';
import type { KeptSummaryName, StorageBackend } from '../storage/types.js';

const caches = new WeakMap<StorageBackend, Map<string, Promise<unknown>>>();

export async function summary<T>(
  backend: StorageBackend,
  name: string,
  compute: () => Promise<T>,
): Promise<T> {
  const version = backend.dataVersion ? await backend.dataVersion() : '';
  const key = `${name}@${version}`;
  const storage = originOf(backend);
  let cache = caches.get(storage);
  if (!cache) caches.set(storage, (cache = new Map()));
  let value = cache.get(key) as Promise<T> | undefined;
  if (!value) {
    // Only the newest version of each summary is worth keeping.
    for (const old of cache.keys()) if (old.startsWith(`${name}@`)) cache.delete(old);
    value = compute();
    cache.set(key, value);
    // A failure (a time limit, say) is not remembered.
    value.catch(() => cache.delete(key));
  }
  return value;
}

/**
 * The JSON of a summary the storage kept when it was prepared (an archive's extracted copy), if any. Only the
 * whole database's are kept: a summary of one user's nodes is always computed.
 */
export async function keptSummary(
  backend: StorageBackend,
  name: KeptSummaryName,
  user: number | undefined,
): Promise<string | undefined> {
  return user === undefined ? backend.keptSummary?.(name) : undefined;
}
