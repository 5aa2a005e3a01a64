/**
 * Node-wide summaries (statistics, type counts) cost a scan of the nodes table. An archive never changes while
 * it is served, so its summaries are computed once; live databases will need invalidation instead.
 */
import type { StorageBackend } from '../storage/types.js';

const caches = new WeakMap<StorageBackend, Map<string, Promise<unknown>>>();

export function summary<T>(backend: StorageBackend, key: string, compute: () => Promise<T>): Promise<T> {
  if (backend.kind !== 'archive') return compute();
  let cache = caches.get(backend);
  if (!cache) caches.set(backend, (cache = new Map()));
  let value = cache.get(key) as Promise<T> | undefined;
  if (!value) {
    value = compute();
    cache.set(key, value);
    // A failure (a time limit, say) is not remembered.
    value.catch(() => cache.delete(key));
  }
  return value;
}
