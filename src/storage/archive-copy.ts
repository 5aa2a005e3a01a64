/**
 * The SQLite copy an archive is served from, for the work that reads it whole in a thread of its own (a search
 * index, an export's tables): Quarry's own file in its cache, which nothing else writes. A live profile has none:
 * its database is the user's, read only through the profile's connections.
 */
import { SqlitePool } from './sqlite-pool.js';
import type { StorageBackend } from './types.js';

export function archiveCopy(backend: StorageBackend): string | undefined {
  if (backend.kind !== 'archive' || !(backend.db instanceof SqlitePool)) return undefined;
  return backend.db.file;
}
