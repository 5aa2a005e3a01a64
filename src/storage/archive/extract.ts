/**
 * The archive's db.sqlite3, extracted once into the cache folder and reused on every later start.
 *
 * The cached copy is named by the archive's identity (size, mtime, central directory hash), so an edited or
 * replaced archive gets a fresh copy and identical copies of one archive share one. It is written under a
 * temporary name, flushed, and renamed into place: a crash, a full disk or a second process starting at the
 * same moment can leave a stray temporary file, never a half-written database under the final name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StorageOpenError } from '../types.js';
import { oneLine, type ZipArchive } from './zip.js';

const DB_ENTRY = 'db.sqlite3';
/** Temporary files older than this were left by a process that died; younger ones may still be in use. */
const STALE_TEMP_MS = 24 * 3600 * 1000;

/** Extractions in progress in this process, so that two opens of one archive extract it once. */
const pending = new Map<string, Promise<string>>();

let extracted = 0;

/** How many databases this process has extracted (rather than reused); lets tests see the cache at work. */
export function extractionCount(): number {
  return extracted;
}

export async function extractDatabase(zip: ZipArchive, cacheDir: string): Promise<string> {
  const entry = zip.get(DB_ENTRY)!;
  const info = await stat(zip.file);
  const identity = createHash('sha256')
    .update(`${info.size}\0${info.mtimeMs}\0${zip.fingerprint}`)
    .digest('hex')
    .slice(0, 32);
  const dir = join(cacheDir, 'archives');
  const label = basename(zip.file)
    .replace(/\.aiida$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 40);
  const target = join(dir, `${label}-${identity}.sqlite3`);
  if (await hasSize(target, entry.size)) return target;

  let job = pending.get(target);
  if (!job) {
    job = extractTo(zip, target, entry.size).finally(() => pending.delete(target));
    pending.set(target, job);
  }
  return job;
}

async function extractTo(zip: ZipArchive, target: string, size: number): Promise<string> {
  const dir = join(target, '..');
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new StorageOpenError(
      `cannot create the cache folder ${dir} (${oneLine((error as Error).message)}); choose another with --cache-dir or QUARRY_CACHE_DIR`,
    );
  }
  await removeStaleTemps(dir);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await pipeline(await zip.openStream(DB_ENTRY), createWriteStream(temp, { flags: 'wx' }));
    // Flushed before the rename so that after a power cut the final name never holds a short file
    // (fsync through any descriptor flushes the file's data).
    const handle = await open(temp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    extracted += 1;
  } catch (error) {
    await rm(temp, { force: true });
    // Another process may have won the race (a rename onto an open file fails on Windows); its copy is good.
    if (await hasSize(target, size)) return target;
    throw new StorageOpenError(extractionProblem(zip.file, dir, error));
  }
  return target;
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

async function hasSize(path: string, size: number): Promise<boolean> {
  try {
    return (await stat(path)).size === size;
  } catch {
    return false;
  }
}

async function removeStaleTemps(dir: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.tmp')) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true });
    }
  } catch {
    // Tidying up is a courtesy; failing at it must not stop the server from starting.
  }
}
