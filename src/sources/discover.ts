/**
 * Sources in folders: every AiiDA archive (told by its content, archive-content.ts: a zip listing
 * metadata.json, a tar.gz or tar whose first entry is a legacy archive's, whatever the file's name; a `.aiida`
 * file always, refused for itself if it is none), every core.sqlite_dos folder (one with `database.sqlite`) and
 * every extracted AiiDA 1.x archive (a folder with `metadata.json` and `data.json`) below the folders given, at
 * any depth. Reading names, sizes, a file's first bytes and a zip's central directory is all it does: nothing is
 * opened. A file that looked like an archive and is not is said once in a line, and the other files of a scan
 * in one line of their count.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { archiveVerdict, type Verdict } from './archive-content.js';
import { nameFrom } from './names.js';
import type { PortalSpec } from './spec.js';

/** Folders below which nothing is served: version control, caches, AiiDA's own repository containers. */
const SKIPPED = new Set(['.git', 'node_modules', 'container']);

/**
 * The sources below `folders`, sorted by path within each folder (so that names and order are stable). `say`
 * gets a line for each file skipped that looked like an archive, and one for the count of the others, for
 * files not seen before at their size and time (a rescan says nothing new of files already said).
 */
export function scanFolders(folders: readonly string[], say: (line: string) => void = warn): PortalSpec[] {
  const found: PortalSpec[] = [];
  for (const folder of folders) {
    const scan: Scan = { found, say, others: 0, seen: new Set() };
    const root = resolve(folder);
    walk(root, scan, 0);
    if (scan.others > 0)
      say(`${folder}: ${scan.others} other file(s) skipped: neither a zip nor a tar.gz, so no AiiDA archive`);
    forgetGone(root, scan.seen);
  }
  return found;
}

function warn(line: string): void {
  process.stderr.write(`quarry: ${line}\n`);
}

interface Scan {
  found: PortalSpec[];
  say: (line: string) => void;
  /** Files of no archive's shape, newly seen. */
  others: number;
  /** Every file whose verdict this scan asked for. */
  seen: Set<string>;
}

/** What each file was found to be, at the version it had: each file is read once, and said once. */
const verdicts = new Map<string, { version: string; verdict: Verdict }>();

function verdictOf(path: string, version: string, scan: Scan): Verdict {
  scan.seen.add(path);
  const known = verdicts.get(path);
  if (known?.version === version) return known.verdict;
  const verdict = archiveVerdict(path);
  verdicts.set(path, { version, verdict });
  if (!verdict.archive) {
    if (verdict.candidate) scan.say(`${path} skipped: ${verdict.why}`);
    else scan.others += 1;
  }
  return verdict;
}

/**
 * The verdicts of files below `root` that a whole scan of it no longer met: a folder whose files come and go (a
 * drop folder of new exports) would otherwise keep one entry for every file it ever held.
 */
function forgetGone(root: string, seen: Set<string>): void {
  const below = root.endsWith(sep) ? root : `${root}${sep}`;
  for (const path of verdicts.keys()) if (path.startsWith(below) && !seen.has(path)) verdicts.delete(path);
}

/** How many files' verdicts are kept (for the tests of forgetting). */
export function verdictsKept(): number {
  return verdicts.size;
}

const MAX_DEPTH = 32;

function walk(folder: string, scan: Scan, depth: number) {
  const { found } = scan;
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    // A folder below removed while it is read holds nothing to serve. Any other failure (out of open files, a
    // folder that may not be read) says nothing of what the folder holds: the scan fails as a whole, and what
    // is served stays as it was, rather than every source below being taken for removed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && depth > 0) return;
    throw new FolderScanError(`${folder} cannot be read (${(error as Error).message})`);
  }
  if (entries.some((e) => e.name === 'database.sqlite' && !e.isDirectory())) {
    const version = fileVersion(join(folder, 'database.sqlite'));
    if (version !== undefined) {
      found.push({ name: nameFrom(folder), kind: 'sqlite-profile', origin: folder, path: folder, version });
    }
    return;
  }
  const file = (name: string) => entries.some((e) => e.name === name && e.isFile());
  if (file('metadata.json') && file('data.json')) {
    const version = fileVersion(folder);
    if (version !== undefined) {
      found.push({ name: nameFrom(folder), kind: 'archive', origin: folder, path: folder, version });
    }
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (depth < MAX_DEPTH) walk(path, scan, depth + 1);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      const version = fileVersion(path);
      if (version === undefined) continue;
      // A .aiida file is one by its name: if it is none, opening it says why, in the sources' list.
      if (/\.aiida$/i.test(entry.name) || verdictOf(path, version, scan).archive)
        found.push({ name: nameFrom(path), kind: 'archive', origin: path, path, version });
    }
  }
}

/** A folder could not be read: the scan tells nothing of what is there. */
export class FolderScanError extends Error {
  override name = 'FolderScanError';
}

/**
 * Size and modification time: a file replaced in place (a new export under the same name) is served anew. An
 * extracted AiiDA 1.x archive (a folder) by its data.json's.
 */
export function fileVersion(file: string): string | undefined {
  try {
    let s = statSync(file);
    if (s.isDirectory()) s = statSync(join(file, 'data.json'));
    return s.isFile() ? `${s.size}:${s.mtimeMs}:${s.ino}` : undefined;
  } catch {
    return undefined;
  }
}
