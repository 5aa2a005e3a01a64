/**
 * The archive's db.sqlite3, extracted once into the cache folder and reused on every later start.
 *
 * The cached copy is named by the archive's identity (size, mtime, central directory hash), so an edited or
 * replaced archive gets a fresh copy and identical copies of one archive share one. It is written under a
 * temporary name, flushed, and renamed into place: a crash, a full disk or a second process starting at the
 * same moment can leave a stray temporary file, never a half-written database under the final name.
 *
 * A new copy of an archive file replaces the copies that file had before (copy-sources.ts).
 *
 * The copy is Quarry's own, so it gains indexes for the requests clients make most (archives carry aiida's
 * single-column indexes only), the nodes of each type in creation order (type-order.ts) and the node summaries
 * computed once (kept-summaries.ts); the archive itself is never written.
 */
import { createHash, randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ProgressCallback } from '../observe.js';
import { StorageOpenError } from '../types.js';
import { dropSupersededCopies, noteSource } from './copy-sources.js';
import { ExtractionBusyError, lockExtraction } from './extract-lock.js';
import { keepSummaries } from './kept-summaries.js';
import { keepTypeOrder, TYPE_ORDER_SQL } from './type-order.js';
import { oneLine, type ZipArchive, type ZipOrigin } from './zip.js';
import { MadeOnce } from '../../util/made-once.js';
import { unpackLimit } from './legacy/limits.js';

const DB_ENTRY = 'db.sqlite3';
/**
 * Indexes added to the extracted copy; changing them changes the cache file names. Listings ordered by -ctime
 * (the explorers' default, with the reference's id tie-break) are read in index order and stop after one page:
 * a page of processes at 10^5 nodes takes 0.1 ms instead of 70 ms (every process looked up, then sorted).
 */
const EXTRA_INDEXES = ['CREATE INDEX quarry_ctime_desc_id ON db_dbnode (ctime DESC, id ASC)'];
/**
 * Statistics for SQLite's planner on the one column whose values are few, skewed and filtered by prefix: the node
 * type. Without them it guesses that any such filter is selective: the explorer's grid (`node_type LIKE
 * 'data.%'`, newest first) read four fifths of rich.aiida's nodes through the type index and sorted them (6-14
 * ms) instead of reading them in ctime order (2 ms), while a rare type (`data.core.upf.%`) keeps the type index.
 * Other tables keep no statistics (their plans are as before). 0.1 s at 10^5 nodes; changing this changes the
 * cache file names.
 */
const PLANNER_STATISTICS = 'ANALYZE of the node_type index';
/** What else the copy holds (src/storage/archive/kept-summaries.ts); a new value makes new copies. */
const KEPT = 'summaries-1';
/** Temporary files older than this were left by a process that died; younger ones may still be in use. */
const STALE_TEMP_MS = 24 * 3600 * 1000;

/** Extractions in progress in this process, so that two opens of one archive extract it once. */
const pending = new MadeOnce<string>();

let extracted = 0;
let extractionSeconds = 0;

/** How many databases this process has extracted (rather than reused); lets tests see the cache at work. */
export function extractionCount(): number {
  return extracted;
}

/** Databases this process extracted and the time it took, in all (for the metrics). */
export function extractionStats(): { count: number; seconds: number } {
  return { count: extracted, seconds: extractionSeconds };
}

/**
 * The steps `onProgress` is told of, in order: 'copy' (bytes of db.sqlite3 out of the zip), 'index' and
 * 'summaries' (0 of 1 when they start, 1 of 1 when done).
 */
export async function extractDatabase(
  zip: ZipArchive,
  cacheDir: string,
  onProgress?: ProgressCallback,
  /** How long to wait while another process extracts the same archive (default: as long as it takes). */
  waitMs = Number.POSITIVE_INFINITY,
): Promise<string> {
  const entry = zip.get(DB_ENTRY)!;
  const size = entry.size;
  const origin = await zip.origin();
  // Every inflated byte counts, as a legacy archive's do (legacy/limits.ts).
  if (size > unpackLimit(origin.size)) {
    throw new StorageOpenError(
      `${zip.file} unpacks to ${size} bytes, ${Math.round(size / Math.max(1, origin.size))} times its size: a zip bomb, not an archive`,
    );
  }
  return cachedCopy(
    {
      file: zip.file,
      origin,
      fingerprint: zip.fingerprint,
      async fill(temp, progress) {
        const source = await zip.openStream(DB_ENTRY);
        if (progress) {
          let copied = 0;
          progress('copy', 0, size);
          source.on('data', (chunk: Buffer) => progress('copy', (copied += chunk.length), size));
        }
        await pipeline(source, createWriteStream(temp, { flags: 'wx' }));
        if (!(await hasSize(temp, size))) throw new Error(`db.sqlite3 is not the ${size} bytes the zip says`);
      },
    },
    cacheDir,
    onProgress,
    waitMs,
  );
}

/** How a cached copy is made: from an AiiDA 2.x zip's db.sqlite3, or converted from a legacy archive. */
export interface CopyRecipe {
  /** The archive (a path or URL), for messages and the copy's name. */
  file: string;
  /** A file's size and mtime; a remote file's size, ETag and Last-Modified: a replaced file gets a new copy. */
  origin: ZipOrigin;
  /** What names the content (a zip's central directory hash; a converter's version and its input's). */
  fingerprint: string;
  /**
   * Writes the database to `temp` (a new file). `beside` is where files that go with the copy may be put (a
   * folder named `<copy>.files`): they are complete once the copy is.
   */
  fill(temp: string, onProgress: ProgressCallback | undefined, beside: string): Promise<void>;
  /** What a failure of `fill` is said as (default: a damaged archive's message). */
  problem?(error: unknown): string | undefined;
}

/**
 * The cached copy the recipe makes, made once (in this process, and across processes sharing the cache
 * folder), gaining Quarry's indexes, planner statistics and summaries; the steps `onProgress` is told of
 * after the recipe's own are 'index' and 'summaries'.
 */
export async function cachedCopy(
  recipe: CopyRecipe,
  cacheDir: string,
  onProgress?: ProgressCallback,
  waitMs = Number.POSITIVE_INFINITY,
): Promise<string> {
  const { origin } = recipe;
  const identity = createHash('sha256')
    .update(
      `${origin.size}\0${origin.stamp}\0${recipe.fingerprint}\0${EXTRA_INDEXES.join(';')}\0${PLANNER_STATISTICS}\0${KEPT}\0${TYPE_ORDER_SQL.join(';')}`,
    )
    .digest('hex')
    .slice(0, 32);
  const dir = join(cacheDir, 'archives');
  const label = basename(/^https?:\/\//i.test(recipe.file) ? new URL(recipe.file).pathname : recipe.file)
    .replace(/\.aiida$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 40);
  const target = join(dir, `${label}-${identity}.sqlite3`);
  if (!(await isComplete(target))) await extractOnce(recipe, target, onProgress, waitMs);
  // Also when the copy was there already: a copy still open when this one was made may be unused by now.
  const source = origin.source;
  await noteSource(target, source);
  await dropSupersededCopies(dir, target, source, `${label}-`);
  return target;
}

/** The folder of files kept with a copy (the unpacked repository of a tar.gz). */
export function filesBeside(copy: string): string {
  return `${copy}.files`;
}

/** The search index kept beside a copy (src/search/): made with the copy, removed with it. */
export function indexBeside(copy: string): string {
  return `${copy}.search`;
}

/**
 * A step run on every new copy under its lock, before the copy is renamed into place (the search index of
 * src/search/, registered by the server and `quarry prepare`): `copy` is the complete database, `target` its
 * final name. A step that fails leaves its file out; the copy is served all the same.
 */
export type CopyStep = (
  copy: string,
  target: string,
  archive: { file: string; bytes: number },
) => Promise<void>;

const copySteps = new Set<CopyStep>();

export function addCopyStep(step: CopyStep): void {
  copySteps.add(step);
}

/** Extracts into `target`, once however many opens of the archive ask for it at the same time. */
function extractOnce(
  recipe: CopyRecipe,
  target: string,
  onProgress: ProgressCallback | undefined,
  waitMs: number,
): Promise<string> {
  return pending.run(target, () => extractLocked(recipe, target, onProgress, waitMs));
}

/** Once across processes and instances sharing the cache folder (extract-lock.ts). */
async function extractLocked(
  recipe: CopyRecipe,
  target: string,
  onProgress: ProgressCallback | undefined,
  waitMs: number,
): Promise<string> {
  const dir = join(target, '..');
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new StorageOpenError(
      `cannot create the cache folder ${dir} (${oneLine((error as Error).message)}); choose another with --cache-dir or QUARRY_CACHE_DIR`,
    );
  }
  let held;
  try {
    held = await lockExtraction(target, () => isComplete(target), waitMs);
  } catch (error) {
    if (error instanceof ExtractionBusyError) throw error;
    throw new StorageOpenError(extractionProblem(recipe.file, dir, error));
  }
  if (held === undefined) return target;
  try {
    return await extractTo(recipe, target, onProgress);
  } finally {
    await held.release();
  }
}

async function extractTo(
  recipe: CopyRecipe,
  target: string,
  onProgress: ProgressCallback | undefined,
): Promise<string> {
  const started = performance.now();
  const dir = join(target, '..');
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new StorageOpenError(
      `cannot create the cache folder ${dir} (${oneLine((error as Error).message)}); choose another with --cache-dir or QUARRY_CACHE_DIR`,
    );
  }
  await removeStaleTemps(dir, basename(target));
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // Files of an earlier attempt that died before its copy was complete are not trusted.
    await rm(filesBeside(target), { recursive: true, force: true });
    await recipe.fill(temp, onProgress, filesBeside(target));
    onProgress?.('index', 0, 1);
    addIndexes(temp);
    onProgress?.('index', 1, 1);
    onProgress?.('summaries', 0, 1);
    await keepSummaries(temp);
    onProgress?.('summaries', 1, 1);
    for (const step of copySteps) {
      await step(temp, target, { file: recipe.file, bytes: recipe.origin.size }).catch(() => undefined);
    }
    // Flushed before the rename so that after a power cut the final name never holds a short file
    // (fsync through any descriptor flushes the file's data).
    const handle = await open(temp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The copy's final size, kept beside it: a copy cut short later (a full disk) is not trusted.
    await writeFile(`${target}.size`, String((await stat(temp)).size));
    await rename(temp, target);
    extracted += 1;
    extractionSeconds += (performance.now() - started) / 1000;
  } catch (error) {
    await rm(temp, { force: true });
    await rm(`${temp}-journal`, { force: true });
    // Another process may have won the race (a rename onto an open file fails on Windows); its copy is good.
    if (await isComplete(target)) return target;
    await rm(filesBeside(target), { recursive: true, force: true });
    // A remote archive's server went away or replaced the file: said as such (503, come back).
    if ((error as { status?: unknown }).status === 503) throw error;
    if (error instanceof StorageOpenError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const own = code === 'ENOSPC' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
    // Those name the cache folder for the one who runs the server; the others are the archive's, said without it.
    const said = own ? error : withoutCachePath(error, dir);
    const dirProblem = extractionProblem(recipe.file, dir, said);
    throw new StorageOpenError((!own && recipe.problem?.(said)) || dirProblem);
  }
  return target;
}

/** An error whose message names a file of the cache folder `dir`, said without its path. */
function withoutCachePath(error: unknown, dir: string): unknown {
  const message = (error as Error | undefined)?.message;
  if (typeof message !== 'string' || !message.includes(dir)) return error;
  const escaped = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const path = new RegExp(`'?${escaped}[^\\s']*'?`, 'g');
  return Object.assign(new Error(message.replace(path, 'a file of the cache folder')), {
    code: (error as NodeJS.ErrnoException).code,
  });
}

function extractionProblem(file: string, dir: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const detail = oneLine((error as Error).message);
  if (code === 'ENOSPC') {
    return `no space left in ${dir} to extract the database of ${file}; free some space or choose another cache folder with --cache-dir or QUARRY_CACHE_DIR`;
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return `cannot write to the cache folder ${dir} (${detail}); choose another with --cache-dir or QUARRY_CACHE_DIR`;
  }
  return `cannot extract db.sqlite3 from ${file} (${detail}); the archive may be damaged: copy or export it again`;
}

function addIndexes(file: string) {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    for (const sql of EXTRA_INDEXES) {
      try {
        db.exec(sql);
      } catch {
        // Only an optimisation: a database it does not fit is served without it, or refused when opened.
      }
    }
    keepTypeOrder(db);
    try {
      // The index's name differs between AiiDA versions (ix_db_dbnode_node_type, ix_db_dbnode_db_dbnode_node_type).
      const lists = db.prepare("SELECT name FROM pragma_index_list('db_dbnode')").pluck().all() as string[];
      const columns = db.prepare('SELECT name FROM pragma_index_info(?)').pluck();
      for (const name of lists) {
        const of = columns.all(name) as string[];
        if (of.length === 1 && of[0] === 'node_type') db.exec(`ANALYZE "${name.replaceAll('"', '""')}"`);
      }
    } catch {
      // Also only an optimisation: without statistics the planner guesses, as it did before.
    }
  } finally {
    db.close();
  }
}

/** A copy renamed into place, still of the size it had then. */
async function isComplete(path: string): Promise<boolean> {
  const recorded = await readFile(`${path}.size`, 'utf8').catch(() => undefined);
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && info.isFile() && String(info.size) === recorded;
}

async function hasSize(path: string, size: number): Promise<boolean> {
  try {
    return (await stat(path)).size === size;
  } catch {
    return false;
  }
}

/** A temporary file of an extraction: the copy (`.tmp`), its journal, a conversion's stage and its journal. */
const TEMP = /\.tmp(\.stage)?(-journal)?$/;

/**
 * Removes temporary files older than a day, and every one of `own` (the copy about to be made, whose lock this
 * process holds, so that no other process writes them): those were left by an attempt that was killed.
 */
async function removeStaleTemps(dir: string, own: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(dir)) {
      const mine = name.startsWith(`${own}.`);
      if (!TEMP.test(name) && !(mine && name === `${own}.files.download`)) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && (mine || now - info.mtimeMs > STALE_TEMP_MS)) await rm(path, { force: true });
    }
  } catch {
    // Tidying up is a courtesy; failing at it must not stop the server from starting.
  }
}
