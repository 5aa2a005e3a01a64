/**
 * The query pool over an archive's cached copy (extract.ts), for AiiDA 2.x archives and converted AiiDA 1.x ones
 * alike: a copy never changes once made, and one that SQLite cannot read is refused in one line saying which
 * file to delete.
 */
import { SqlitePool } from '../sqlite-pool.js';
import { StorageOpenError, type Database, type QuerySettings } from '../types.js';
import { oneLine } from './zip.js';

/** `refusal(reason)`: the line to refuse with when the copy cannot be read. */
export async function openCopy(
  copy: string,
  settings: QuerySettings,
  refusal: (reason: string) => string,
): Promise<Database> {
  try {
    return await SqlitePool.open(copy, {
      size: settings.workers,
      timeoutMs: settings.queryTimeoutMs,
      maxWaiting: settings.maxWaiting,
      memoryMb: settings.queryMemoryMb,
      shared: settings.sharedProcesses,
      unchanging: true,
    });
  } catch (error) {
    throw new StorageOpenError(refusal(oneLine((error as Error).message)));
  }
}
