/**
 * An export from its plan to a stream: its database written into a temporary folder of the cache, then the
 * zip streamed from it. The folder goes when the stream ends, completed or cut short (the client gone), so
 * that nothing of an export stays behind; a whole-source export is also kept, under its final name, once its
 * stream completed and only then.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { HttpError } from '../rest/errors.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { archiveMetadata, archiveStream } from './archive-stream.js';
import { writeDatabase } from './database.js';
import { tooManyBytes, type ExportPlan } from './plan.js';

export interface Written {
  stream: Readable;
  /** Bytes of the database and the files before compression: what the bound on bytes counts. */
  bytes: number;
}

export async function writeArchive(
  backend: StorageBackend,
  plan: ExportPlan,
  exportsDir: string,
  maxBytes: number,
  budget: QueryBudget,
  stopped: () => boolean,
  keepAs?: string,
): Promise<Written> {
  await mkdir(exportsDir, { recursive: true });
  const dir = await mkdtemp(join(exportsDir, 'tmp-'));
  const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    const dbFile = join(dir, 'db.sqlite3');
    await writeDatabase(backend.db, plan, dbFile, budget, stopped);
    // nginx's 499: the client closed the connection; nobody reads this answer, the log says what happened.
    if (stopped()) throw new HttpError(499, 'the client closed the connection before the export was written');
    const bytes = (await stat(dbFile)).size + plan.fileBytes;
    if (bytes > maxBytes) throw tooManyBytes(maxBytes);
    const stream = archiveStream(
      plan,
      archiveMetadata(plan, backend.aiidaVersion),
      dbFile,
      backend.repository,
    );
    if (keepAs === undefined) {
      stream.once('close', () => void cleanup());
      return { stream, bytes };
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
    return { stream, bytes };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
