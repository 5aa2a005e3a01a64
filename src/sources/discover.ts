/**
 * Sources in folders: every `.aiida` file, every core.sqlite_dos folder (one with `database.sqlite`), every
 * extracted AiiDA 1.x archive (a folder with `metadata.json` and `data.json`) and every `.tar.gz` or `.tgz` one
 * (told from other tarballs by its first entry) below the folders given, at any depth. Reading names, sizes
 * and a tarball's first 4 KiB is all it does: nothing is opened.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { looksLegacyTar } from '../storage/archive/legacy/tar-unpack.js';
import { nameFrom } from './names.js';
import type { PortalSpec } from './spec.js';

/** Folders below which nothing is served: version control, caches, AiiDA's own repository containers. */
const SKIPPED = new Set(['.git', 'node_modules', 'container']);

/** The sources below `folders`, sorted by path within each folder (so that names and order are stable). */
export function scanFolders(folders: readonly string[]): PortalSpec[] {
  const found: PortalSpec[] = [];
  for (const folder of folders) walk(resolve(folder), found, 0);
  return found;
}

const MAX_DEPTH = 32;

function walk(folder: string, found: PortalSpec[], depth: number) {
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
      if (depth < MAX_DEPTH) walk(path, found, depth + 1);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      const archive =
        /\.aiida$/i.test(entry.name) || (/\.(tar\.gz|tgz)$/i.test(entry.name) && looksLegacyTar(path));
      const version = archive ? fileVersion(path) : undefined;
      if (version !== undefined)
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
