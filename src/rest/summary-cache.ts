/**
 * Node-wide summaries (statistics, type counts) cost a scan of the nodes table. An archive never changes while
 * it is served, so its summaries are computed once; a live database's are kept under the data version (a cheap
 * query) of the server that computed them. Replicas may lag behind the primary, so a few versions are kept.
 */
import { originOf } from '../storage/budgeted.js';
import type { KeptSummaryName, StorageBackend } from '../storage/types.js';

const caches = new WeakMap<StorageBackend, Map<string, Promise<unknown>>>();
/** Versions of one summary kept at once: the primary's and its replicas' while they catch up. */
const VERSIONS_KEPT = 4;

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
    // The oldest versions of this summary go first.
    const versions = [...cache.keys()].filter((k) => k.startsWith(`${name}@`));
    for (const old of versions.slice(0, Math.max(0, versions.length - VERSIONS_KEPT + 1))) cache.delete(old);
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
