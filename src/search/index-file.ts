/**
 * A search index file beside its source's copy (`<copy>.search`): made under a temporary name and renamed into
 * place, so that a file under the final name is always complete; its `meta` table says what it holds. The
 * copy step (registered with the archive extraction) makes it with every new copy, under the copy's lock; a
 * copy made before (by an older Quarry, or before the server registered the step) gets its index at its
 * first search, under a lock of its own. Either way it is built in a worker thread (index-worker.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { addCopyStep, indexBeside } from '../storage/archive/extract.js';
import { lockExtraction } from '../storage/archive/extract-lock.js';
import { buildIndex, INDEX_VERSION } from './index-build.js';
import type { IndexReply, IndexTask } from './index-worker.js';

export { indexBeside };

/** How long a search waits for another process that makes the same index. */
const LOCK_WAIT_MS = 60_000;

/** What an index says of its source, read from its `meta` table. */
export interface IndexFigures {
  nodes: number;
  structures: number;
  processes: number;
  exportVersion: string | null;
  aiidaVersion: string | null;
  archiveBytes: number | null;
}

/** The compiled worker; where there is none (the test runner runs the TypeScript sources), this thread builds. */
const WORKER_FILE = fileURLToPath(new URL('./index-worker.js', import.meta.url));

/** Makes the index of the database `copy` at `target`; a half-made file never takes the final name. */
export async function makeIndex(copy: string, target: string, meta: Record<string, string>): Promise<void> {
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    if (existsSync(WORKER_FILE)) await buildInWorker({ source: copy, out: temp, meta });
    else buildIndex(copy, temp, meta);
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * The one thread that builds this process's indexes, started at the first build and stopped once idle: a thread
 * per build cost its start (a new isolate, better-sqlite3 loaded again, its own files) on every source's first
 * opening, and a portal's first look at many small sources ran several at once. Builds wait in its queue.
 */
interface Builder {
  worker: Worker;
  pending: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
  idle?: NodeJS.Timeout;
}

/** How long the thread stays once it has nothing to build, for the next source's first opening. */
const BUILDER_IDLE_MS = 10_000;

let builder: Builder | undefined;
let nextTask = 0;

function indexBuilder(): Builder {
  if (builder !== undefined) return builder;
  // None of the process's options: a worker refuses some (see optimade/side-build.ts), and needs none.
  const worker = new Worker(WORKER_FILE, { execArgv: [] });
  const made: Builder = { worker, pending: new Map() };
  const fail = (error: Error) => {
    if (builder === made) builder = undefined;
    for (const task of made.pending.values()) task.reject(error);
    made.pending.clear();
  };
  worker.on('message', (reply: IndexReply) => {
    const task = made.pending.get(reply.id);
    made.pending.delete(reply.id);
    if (reply.ok) task?.resolve();
    else task?.reject(new Error(reply.error));
    if (made.pending.size === 0) {
      // Idle, it keeps no process alive, and goes after a while with its memory.
      worker.unref();
      made.idle = setTimeout(() => {
        if (builder === made && made.pending.size === 0) {
          builder = undefined;
          void worker.terminate();
        }
      }, BUILDER_IDLE_MS);
      made.idle.unref();
    }
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the search index builder stopped (exit code ${code})`)));
  builder = made;
  return made;
}

/** Builds an index in the builder thread, so that the serving thread goes on answering. */
function buildInWorker(task: IndexTask): Promise<void> {
  const made = indexBuilder();
  const id = nextTask++;
  clearTimeout(made.idle);
  made.worker.ref();
  return new Promise((resolve, reject) => {
    made.pending.set(id, { resolve, reject });
    made.worker.postMessage({ id, task });
  });
}

/** The figures of a complete index of this version, or undefined (missing, older, unreadable). */
export function readFigures(index: string): IndexFigures | undefined {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(index, { readonly: true, fileMustExist: true });
    const rows = db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][];
    const meta = new Map(rows);
    if (meta.get('version') !== INDEX_VERSION) return undefined;
    const number = (key: string) => (meta.has(key) ? Number(meta.get(key)) : null);
    return {
      nodes: number('nodes') ?? 0,
      structures: number('structures') ?? 0,
      processes: number('processes') ?? 0,
      exportVersion: meta.get('export_version') ?? null,
      aiidaVersion: meta.get('aiida_version') ?? null,
      archiveBytes: number('archive_bytes'),
    };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/**
 * What an index holds, in a few dozen words: its node types and its elements. A search that asks for a type,
 * an element, a process state or a number of elements the index does not hold is answered without reading it.
 */
export interface IndexFacts {
  types: string[];
  elements: Set<string>;
}

export function readFacts(index: string): IndexFacts {
  const db = new BetterSqlite3(index, { readonly: true, fileMustExist: true });
  try {
    const types = db.prepare('SELECT node_type FROM types WHERE nodes > 0').pluck().all() as string[];
    const elements = db.prepare('SELECT element FROM element_counts').pluck().all() as string[];
    return { types, elements: new Set(elements) };
  } finally {
    db.close();
  }
}

/** Adds what the index did not know when it was made (the versions, known once the source is open). */
export function completeMeta(index: string, meta: Record<string, string>): void {
  // Long enough for another process's same few rows; a process searching the index holds it for good.
  const db = new BetterSqlite3(index, { fileMustExist: true, timeout: 250 });
  try {
    const keep = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
    db.transaction(() => {
      for (const [key, value] of Object.entries(meta)) keep.run(key, value);
    })();
  } finally {
    db.close();
  }
}

/**
 * The index of `copy`, made if it is missing or of an older version, once across the processes sharing the
 * cache folder; its figures.
 */
export async function ensureIndex(copy: string, meta: Record<string, string>): Promise<IndexFigures> {
  const target = indexBeside(copy);
  const current = readFigures(target);
  if (current !== undefined) return current;
  const held = await lockExtraction(target, async () => readFigures(target) !== undefined, LOCK_WAIT_MS);
  try {
    if (held !== undefined) await makeIndex(copy, target, meta);
  } finally {
    await held?.release();
  }
  const made = readFigures(target);
  if (made === undefined) throw new Error(`the search index ${target} could not be read after it was made`);
  return made;
}

/** Every new copy of an archive gets its index under the copy's lock (called by the server and by prepare). */
export function indexEveryCopy(): void {
  addCopyStep(indexWithCopy);
}

async function indexWithCopy(copy: string, target: string, archive: { bytes: number }): Promise<void> {
  await makeIndex(copy, indexBeside(target), { archive_bytes: String(archive.bytes) });
}
