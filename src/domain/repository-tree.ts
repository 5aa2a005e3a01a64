/**
 * A node's file tree as AiiDA records it in `repository_metadata`: `{"o": {name: entry}}` where a file entry is
 * `{"k": <object key>}` and a directory entry is `{"o": {...}}` (or `{}` when empty).
 */

export type RepositoryErrorKind = 'invalid-path' | 'not-found' | 'not-a-directory' | 'is-a-directory';

export class RepositoryPathError extends Error {
  constructor(
    readonly kind: RepositoryErrorKind,
    message: string,
  ) {
    super(message);
  }
}

interface Entry {
  k?: unknown;
  o?: unknown;
}

export interface ListedObject {
  name: string;
  type: 'FILE' | 'DIRECTORY';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Split a relative path into its parts; a path that could leave the node's own tree (`..`, absolute, NUL, a
 * backslash) is refused rather than normalised.
 */
export function splitRepositoryPath(path: string): string[] {
  if (path.includes('\0'))
    throw new RepositoryPathError('invalid-path', 'file names must not contain NUL bytes');
  if (path.includes('\\'))
    throw new RepositoryPathError('invalid-path', 'use "/" to separate folders, not "\\"');
  if (path.startsWith('/')) {
    throw new RepositoryPathError(
      'invalid-path',
      `"${path}" is absolute; give a path relative to the node's files`,
    );
  }
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) {
    throw new RepositoryPathError(
      'invalid-path',
      `"${path}" contains ".."; paths stay inside the node's files`,
    );
  }
  return parts;
}

function lookup(metadata: unknown, parts: string[], path: string): Entry {
  let entry: Entry = isObject(metadata) ? (metadata as Entry) : {};
  for (const part of parts) {
    if (entry.k !== undefined) {
      throw new RepositoryPathError('not-a-directory', `"${path}" goes through a file; it is not a folder`);
    }
    const children = isObject(entry.o) ? entry.o : {};
    const next = children[part];
    if (!isObject(next))
      throw new RepositoryPathError('not-found', `"${path}" does not exist in this node's files`);
    entry = next as Entry;
  }
  return entry;
}

/** The objects of a folder (`''` for the top), sorted by name as AiiDA lists them. */
export function listRepository(metadata: unknown, path: string): ListedObject[] {
  const parts = splitRepositoryPath(path);
  const entry = lookup(metadata, parts, path);
  if (entry.k !== undefined) {
    throw new RepositoryPathError('not-a-directory', `${path} is not a directory in this repository`);
  }
  const children = isObject(entry.o) ? entry.o : {};
  return Object.keys(children)
    .sort()
    .map((name) => ({
      name,
      type: isObject(children[name]) && 'k' in children[name] ? 'FILE' : 'DIRECTORY',
    }));
}

/** The object key of a file. */
export function fileKey(metadata: unknown, path: string): string {
  const parts = splitRepositoryPath(path);
  if (parts.length === 0)
    throw new RepositoryPathError('is-a-directory', 'give the name of a file, not the top folder');
  const entry = lookup(metadata, parts, path);
  if (typeof entry.k !== 'string') {
    throw new RepositoryPathError(
      'is-a-directory',
      `"${path}" is a folder, not a file; list it with repo/list`,
    );
  }
  return entry.k;
}

/** Every file of the tree as `[relative path, key]`, depth first, sorted by name. */
export function walkRepository(metadata: unknown, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  const entry: Entry = isObject(metadata) ? (metadata as Entry) : {};
  const children = isObject(entry.o) ? entry.o : {};
  for (const name of Object.keys(children).sort()) {
    const child = children[name] as Entry;
    const path = prefix ? `${prefix}/${name}` : name;
    if (typeof child.k === 'string') out.push([path, child.k]);
    else out.push(...walkRepository(child, path));
  }
  return out;
}
