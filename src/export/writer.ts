/**
 * An export from its plan to a stream: the database is written into a temporary folder of the cache, then the
 * zip streams (archive-stream.ts: metadata.json, the database, the repository files). The folder goes
 * when the stream ends, completed or cut short (the client gone), and the database's writing with it, so that
 * nothing of an export stays behind; a whole-source export is also kept, under its final name, once its stream
 * completed and only then.
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
  try {
    const dbFile = join(dir, 'db.sqlite3');
    let closed = false;
    const done = () => closed || stopped();
    const database = writeDatabase(backend.db, plan, dbFile, budget, done, archiveCopy(backend)).then(() => {
      // The stream was cut short meanwhile: the database is not complete, nothing reads it.
      if (done()) throw new Error('the client closed the connection before the export was written');
      return dbFile;
    });
    const stream = archiveStream(
      plan,
      archiveMetadata(plan, backend.aiidaVersion),
      database,
      backend.repository,
    );
    // The folder goes once the stream is closed and the database's writing has stopped.
    const settled = database.then(
      () => undefined,
      () => undefined,
    );
    stream.once('close', () => {
      closed = true;
    });
    if (keepAs === undefined) {
      stream.once('close', () => void settled.then(cleanup));
      return stream;
    }
    const partial = join(dir, 'archive.aiida');
    const file = createWriteStream(partial);
    let ended = false;
    stream.once('end', () => (ended = true));
    file.once('close', () => {
      const keep = ended && !stream.errored && file.errored === null;
      void settled
        .then(() => (keep ? rename(partial, keepAs).catch(() => undefined) : undefined))
        .finally(cleanup);
    });
    stream.once('close', () => {
      if (!ended) file.destroy();
    });
    stream.pipe(file);
    return stream;
  } catch (error) {
    await cleanup();
    throw error;
  }
}
