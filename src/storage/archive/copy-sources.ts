/**
 * Which archive files each extracted copy serves, kept beside it (`<copy>.sources`, one absolute path a line),
 * so that a new copy of an archive file (the file was replaced, or a new version of Quarry makes its copies
 * differently) removes the copies that file had before. Without this, every upgrade left the old copies behind:
 * 10 GB for an archive of 10^7 nodes.
 *
 * Copies are shared by identical archives (same size, time and directory) wherever they lie, so a copy goes
 * only once no archive file it was made for still uses it; archives of the same name in other folders keep
 * theirs. Copies made before these lists existed have none and are left alone. All of this is tidying: a
 * failure here never stops a server from starting.
 */
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
 * After `current` was made for the archive at `source`: the other copies in `dir` no longer serve that file,
 * and those left serving none are removed (the size beside a copy first, so that a copy half removed is never
 * trusted).
 */
export async function dropSupersededCopies(dir: string, current: string, source: string): Promise<void> {
  try {
    for (const name of await readdir(dir)) {
      if (!name.endsWith(`.sqlite3${SOURCES}`)) continue;
      const copy = join(dir, name.slice(0, -SOURCES.length));
      const sources = copy === current ? undefined : await sourcesOf(copy);
      if (!sources?.includes(source)) continue;
      const others = sources.filter((s) => s !== source);
      if (others.length > 0) {
        await writeFile(`${copy}${SOURCES}`, others.map((s) => `${s}\n`).join(''));
        continue;
      }
      for (const file of [`${copy}.size`, copy, `${copy}-journal`, `${copy}${SOURCES}`]) {
        await rm(file, { force: true });
      }
    }
  } catch {
    // A copy left behind costs disk space, nothing else.
  }
}
