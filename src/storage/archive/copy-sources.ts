/**
 * Which archive files each extracted copy serves, kept beside it (`<copy>.sources`, one absolute path a line),
 * so that a new copy of an archive file (the file was replaced, or a new version of Quarry makes its copies
 * differently) removes the copies that file had before. Without this, every upgrade left the old copies behind:
 * 10 GB for an archive of 10^7 nodes.
 *
 * Copies are shared by identical archives (same size, time and directory) wherever they lie, so a copy goes
 * only once no archive file it was made for still uses it; archives of the same name in other folders keep
 * theirs. A copy a running Quarry still reads (an older version during an upgrade) stays until a later start
 * finds it unused. Copies made before these lists existed have none and are left alone. All of this is
 * tidying: a failure here never stops a server from starting.
 */
import BetterSqlite3 from 'better-sqlite3';
import { appendFile, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SOURCES = '.sources';

/** The archive's path as every copy records it: absolute, through any symbolic links. */
export async function sourcePath(file: string): Promise<string> {
  return realpath(file).catch(() => resolve(file));
}

async function sourcesOf(copy: string): Promise<string[] | undefined> {
  const text = await readFile(`${copy}${SOURCES}`, 'utf8').catch(() => undefined);
  return text?.split('\n').filter((line) => line !== '');
}

/** Records that `copy` serves the archive at `source`. */
export async function noteSource(copy: string, source: string): Promise<void> {
  try {
    if (!(await sourcesOf(copy))?.includes(source)) await appendFile(`${copy}${SOURCES}`, `${source}\n`);
  } catch {
    // Only tidying depends on it.
  }
}

/**
 * With `current` serving the archive at `source`: the other copies in `dir` no longer serve that file, and
 * those left serving none are removed unless still open. A copy left behind costs disk space, nothing else.
 * Only copies whose name starts with `label` (the archive's file name, as copies are named) are read: a
 * portal's cache holds thousands of copies, and reading every list at every open made opening grow with them.
 */
export async function dropSupersededCopies(
  dir: string,
  current: string,
  source: string,
  label = '',
): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(label) && n.endsWith(`.sqlite3${SOURCES}`))) {
    const copy = join(dir, name.slice(0, -SOURCES.length));
    if (copy !== current) await dropSource(copy, source).catch(() => undefined);
  }
}

/** `copy` no longer serves `source`; removed if it serves nothing else (its size first: never half trusted). */
async function dropSource(copy: string, source: string): Promise<void> {
  const sources = await sourcesOf(copy);
  if (!sources?.includes(source)) return;
  const others = sources.filter((s) => s !== source);
  if (others.length > 0) return writeFile(`${copy}${SOURCES}`, others.map((s) => `${s}\n`).join(''));
  if (isOpen(copy)) return;
  // `.search`: the search index made with the copy (extract.ts, indexBeside).
  for (const file of [`${copy}.size`, copy, `${copy}-journal`, `${copy}${SOURCES}`, `${copy}.search`])
    await rm(file, { force: true });
  // The unpacked repository of a converted tar.gz (extract.ts, filesBeside).
  await rm(`${copy}.files`, { recursive: true, force: true });
}

/**
 * Whether a process has the copy open. Quarry reads its copies with `locking_mode = EXCLUSIVE`, so every
 * connection that has read keeps a shared lock, and no exclusive lock can be had while one is open; a
 * worker replaced after a query timeout opens the file again by its name, so an open copy must stay.
 */
function isOpen(copy: string): boolean {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(copy, { fileMustExist: true, timeout: 0 });
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch {
    return true;
  } finally {
    db?.close();
  }
}
