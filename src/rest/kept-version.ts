/**
 * The name of a storage's data as it is now, for answers kept while it is unchanged: an archive's identity (it
 * never changes), or a live database's data version (a PostgreSQL server's snapshot, asked at most once a
 * second; a SQLite file's size and time) under the storage's own number in this process.
 */
import { originOf } from '../storage/budgeted.js';
import type { StorageBackend } from '../storage/types.js';

/**
 * Live storages by the object that serves them, not by a request's view of it (new for every request): two
 * databases can be at the same data version (two PostgreSQL servers' snapshot numbers coincide), and a portal
 * serves many at once.
 */
const liveIds = new WeakMap<StorageBackend, number>();
let nextLiveId = 0;

const liveId = (backend: StorageBackend): number => {
  let id = liveIds.get(backend);
  if (id === undefined) liveIds.set(backend, (id = nextLiveId++));
  return id;
};

/** Undefined for a storage that cannot say when its data changed: nothing of it may be kept. */
export async function keptVersion(backend: StorageBackend): Promise<string | undefined> {
  if (backend.identity !== undefined) return `a:${backend.identity}`;
  if (!backend.dataVersion) return undefined;
  return `v:${liveId(originOf(backend))}:${await backend.dataVersion()}`;
}
