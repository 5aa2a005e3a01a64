/**
 * A source's structures as OPTIMADE sees them, computed once into a SQLite file of Quarry's own (the side
 * table), with an index on every property a filter or a sort reads: filters run as SQL on indexed columns,
 * never by reading every structure per request. The served data is never written.
 *
 * The file lives in the source's cache folder (`optimade/`): for an archive it is named by the archive's
 * identity, so a changed archive gets a new one; for a live profile it is named by the source and holds the data
 * version it was built at, and is built again when that version moves. A file is written under a temporary
 * name and renamed into place, so a crash leaves no half-built table under the final name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import type { Database, StorageBackend } from '../storage/types.js';
import { ExtractionBusyError, lockExtraction, type Held } from '../storage/archive/extract-lock.js';
import { buildInto, fillSymmetry, type BuildOptions } from './side-build.js';

/** Changing the table's columns or how properties are computed changes this, and so the file names. */
const LAYOUT = 'optimade-8';

/** A built side table, open for queries. */
export interface SideTable {
  readonly db: Database;
  /** The data version it was built at (live sources), or the archive identity. */
  readonly version: string;
  readonly count: number;
  /** Whether its symmetry columns are filled (side-symmetry.ts); until then they are null and not indexed. */
  readonly symmetry: 'complete' | 'pending';
  /** Its file. */
  readonly file: string;
  close(): Promise<void>;
}

/** Builds the side table of `backend` into `target` (through a temporary file); returns the structures' count. */
async function build(
  backend: StorageBackend,
  target: string,
  version: string,
  options: SideTableOptions,
): Promise<number> {
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const { count } = await buildInto(backend, temp, version, options);
    await rename(temp, target);
    return count;
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

function fileName(backend: StorageBackend): string {
  const label = backend.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  const key = backend.identity ?? `${backend.kind}\0${backend.name}`;
  return `${label}-${createHash('sha256').update(`${key}\0${LAYOUT}`).digest('hex').slice(0, 24)}.sqlite3`;
}

interface Meta {
  version: string;
  count: number;
  symmetry: 'complete' | 'pending';
}

function readMeta(file: string): Meta | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT key, value FROM side_meta').all() as { key: string; value: string }[];
      const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
      if (meta.version === undefined) return undefined;
      const symmetry = meta.symmetry === 'complete' ? 'complete' : 'pending';
      return { version: meta.version, count: Number(meta.count), symmetry };
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

export interface SideTableOptions extends BuildOptions {
  /** Where the file goes (default: the source's cache folder, else Quarry's). */
  cacheDir?: string;
  queryTimeoutMs?: number;
}

/**
 * The side table of `backend` at `version` (the archive identity, or the live data version now): the file
 * already built for it, or a new one.
 */
export async function openSideTable(
  backend: StorageBackend,
  version: string,
  options: SideTableOptions = {},
): Promise<SideTable> {
  const dir = join(options.cacheDir ?? defaultCacheDir(), 'optimade');
  await mkdir(dir, { recursive: true });
  const target = join(dir, fileName(backend));
  let meta = readMeta(target);
  if (meta?.version !== version) {
    const held = await lockTable(target, () => readMeta(target)?.version === version, options.signal);
    try {
      meta = readMeta(target);
      if (meta?.version !== version) {
        // A live table is replaced: the new one is renamed over it, and the pool of the old one keeps its file.
        const count = await build(backend, target, version, options);
        meta = { version, count, symmetry: 'pending' };
        await removeStaleTemps(dir);
      }
    } finally {
      await held?.release();
    }
  }
  return open(target, meta, backend, options);
}

/**
 * The table `table` with its symmetry found (side-symmetry.ts): written into a copy of its file, renamed over
 * it, and opened. A restart finds a file whose symmetry is pending, and its pass is run again from the start.
 */
/** Structures up to which the symmetry pass runs in the serving thread. */
const SMALL_PASS = 2_000;

export async function completeSymmetry(
  backend: StorageBackend,
  table: SideTable,
  progress: (done: number) => void,
  options: SideTableOptions = {},
): Promise<SideTable> {
  const temp = `${table.file}.${randomBytes(6).toString('hex')}.tmp`;
  const done = () => {
    const meta = readMeta(table.file);
    return meta?.version === table.version && meta.symmetry === 'complete';
  };
  // Another serving process on the same cache may have done the pass, or be doing it: its result is read.
  const held = await lockTable(table.file, done, options.signal);
  try {
    if (held !== undefined && !done()) {
      // A small table's pass is quicker from the serving thread (its groups found in one thread started for
      // it) than in build threads, which also leave the process larger for good (their heaps and moyo in each).
      const workers = options.workers ?? (table.count < SMALL_PASS ? 0 : undefined);
      await fillSymmetry(backend, table.file, temp, table.version, progress, { ...options, workers });
      await rename(temp, table.file);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    await held?.release();
  }
  return open(
    table.file,
    { version: table.version, count: table.count, symmetry: 'complete' },
    backend,
    options,
  );
}

async function open(
  target: string,
  meta: Meta,
  backend: StorageBackend,
  options: SideTableOptions,
): Promise<SideTable> {
  // A portal's sources run their queries on processes they share; their side tables do too, so that the
  // processes do not grow with the sources. A source with processes of its own gives its table two more.
  const shared = backend.db instanceof SqlitePool ? backend.db.sharedProcesses : undefined;
  const db = await SqlitePool.open(target, { timeoutMs: options.queryTimeoutMs, unchanging: true, shared });
  const { version, count, symmetry } = meta;
  return { db, version, count, symmetry, file: target, close: () => db.close() };
}

/** How long one look for the table's lock waits before the signal is looked at again. */
const LOCK_LOOK_MS = 1_000;

/**
 * The lock of a table's file (extract-lock.ts, as an archive's copy has), held while one process builds it or
 * runs its symmetry pass, so that processes sharing a cache do each once: undefined where `done` tells that
 * another did it meanwhile. Waits for as long as the other works (a dead holder's lock is taken over), or until
 * the server closes.
 */
async function lockTable(
  file: string,
  done: () => boolean,
  signal: AbortSignal | undefined,
): Promise<Held | undefined> {
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await lockExtraction(file, () => Promise.resolve(done()), LOCK_LOOK_MS);
    } catch (error) {
      if (!(error instanceof ExtractionBusyError)) throw error;
    }
  }
}

const STALE_TEMP_MS = 24 * 3600 * 1000;

async function removeStaleTemps(dir: string): Promise<void> {
  try {
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.tmp')) continue;
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > STALE_TEMP_MS) await rm(join(dir, name), { force: true });
    }
  } catch {
    // Tidying is a courtesy only.
  }
}
