/**
 * An export from its plan to a stream: the database is written into a temporary folder of the cache, and only
 * then does the zip stream (archive-stream.ts: metadata.json, the database, the repository files), so that a
 * database that cannot be written (its reads past their time limit) is an error answer, not a cut download.
 * The folder goes when the stream ends, completed or cut short (the client gone), or when the database's
 * writing stops (the client gone before), so that nothing of an export stays behind; a whole-source export is
 * also kept, under its final name, once its stream completed and only then.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { archiveCopy } from '../storage/archive-copy.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { archiveMetadata, archiveStream } from './archive-stream.js';
import { writeDatabase } from './database.js';
import type { ExportPlan } from './plan.js';

export async function writeArchive(
  backend: StorageBackend,
  plan: ExportPlan,
  exportsDir: string,
  budget: QueryBudget,
  stopped: () => boolean,
  keepAs?: string,
): Promise<Readable> {
  await mkdir(exportsDir, { recursive: true });
  const dir = await mkdtemp(join(exportsDir, 'tmp-'));
  const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 3 });
  let stream: Readable;
  try {
    const dbFile = join(dir, 'db.sqlite3');
    await writeDatabase(backend.db, plan, dbFile, budget, stopped, archiveCopy(backend));
    // The client left meanwhile: the database's writing stopped, and nothing reads it.
    if (stopped()) throw new Error('the client closed the connection before the export was written');
    stream = archiveStream(plan, archiveMetadata(plan, backend.aiidaVersion), dbFile, backend.repository);
  } catch (error) {
    await cleanup();
    throw error;
  }
  if (keepAs === undefined) {
    stream.once('close', () => void cleanup());
    return stream;
  }
  const partial = join(dir, 'archive.aiida');
  const file = createWriteStream(partial);
  let ended = false;
  stream.once('end', () => (ended = true));
  file.once('close', () => {
    const keep = ended && !stream.errored && file.errored === null;
    void (keep ? rename(partial, keepAs).catch(() => undefined) : Promise.resolve()).finally(cleanup);
  });
  stream.once('close', () => {
    if (!ended) file.destroy();
  });
  stream.pipe(file);
  return stream;
}
