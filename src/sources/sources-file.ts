/**
 * `quarry serve --sources FILE`: a YAML file that names each source with its kind and settings.
 *
 *   optimade_default: mc3d     # optional: the source of the plain /optimade/v1/ (default: the first)
 *   sources:
 *     - name: mc3d               # optional for archives and folders: the file name
 *       archive: /data/mc3d.aiida
 *     - archive: https://data.example.org/2dtopo.aiida   # read by range from its server
 *     - folder: /data/archives   # every archive and core.sqlite_dos folder below it
 *     - name: lab
 *       sqlite_dos: /data/lab-profile
 *     - name: big
 *       postgres: postgres://reader@db.example.org/aiida
 *       repository: /data/big/repository
 *       replicas: [postgres://reader@replica.example.org/aiida]
 *       query_timeout: 120        # seconds, this source only
 *     - profile: my-profile      # a profile of AiiDA's config.json
 *
 * Relative paths are taken from the file's folder. Every mistake is an error naming the entry and what to fix,
 * in one line that never echoes a value whole. Only a regular file of at most MAX_SOURCES_FILE_BYTES is read
 * (a FIFO would hang the reading, /dev/zero never end); src/sources/sources-file-reader.ts reads it off the
 * serving thread.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { fileVersion } from './discover.js';
import { nameFrom } from './names.js';
import { isRemoteArchive, remoteSpec } from './remote.js';
import type { PortalSpec } from './spec.js';

export class SourcesFileError extends Error {
  override name = 'SourcesFileError';
}

const KINDS = ['archive', 'folder', 'sqlite_dos', 'postgres', 'profile'] as const;
const SETTINGS = ['name', 'repository', 'replicas', 'query_timeout'];

/** The largest sources file read: thousands of sources fit in a fraction of it. */
export const MAX_SOURCES_FILE_BYTES = 16 << 20;
/** The most entries: each is a source the catalog keeps and every look at the folders goes through. */
const MAX_ENTRIES = 100_000;
/** The longest text of a setting (a path, a URL): a value longer is a mistake, refused without echoing it. */
const MAX_TEXT = 4096;
/** The largest query_timeout: a day (and what a timer can wait for). */
const MAX_QUERY_TIMEOUT_S = 86_400;

/** The sources a file names, and the folders it names (scanned again while serving, as folders given on the command line). */
export interface SourcesFile {
  specs: PortalSpec[];
  folders: { folder: string; queryTimeout?: number }[];
  /** `optimade_default: NAME`: the source of the plain `/optimade/v1/` (see docs/optimade.md). */
  optimadeDefault?: string;
}

export function readSourcesFile(file: string): SourcesFile {
  const text = readRegularFile(file);
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new SourcesFileError(`${file} is not valid YAML: ${cut((error as Error).message.split('\n')[0]!)}`);
  }
  const list = (document as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(list)) {
    throw new SourcesFileError(
      `${file} must hold a list under "sources:" (see docs/portal.md for an example)`,
    );
  }
  if (list.length > MAX_ENTRIES) {
    throw new SourcesFileError(
      `${file} names ${list.length} sources; a sources file names at most ${MAX_ENTRIES} (a folder: entry serves every archive below it)`,
    );
  }
  const base = dirname(resolve(file));
  const read: SourcesFile = { specs: [], folders: [] };
  const optimadeDefault = (document as { optimade_default?: unknown }).optimade_default;
  if (optimadeDefault !== undefined) {
    if (typeof optimadeDefault !== 'string' || optimadeDefault === '')
      throw new SourcesFileError(`${file}: optimade_default must be the name of a source`);
    read.optimadeDefault = optimadeDefault;
  }
  list.forEach((entry, i) => {
    const found = specsOf(entry, `${file}, source ${i + 1}`, base);
    if ('folder' in found) read.folders.push(found);
    else read.specs.push(...found);
  });
  return read;
}

/** The file's text, if it is a regular file of at most MAX_SOURCES_FILE_BYTES. */
function readRegularFile(file: string): string {
  let fd: number;
  try {
    // Not blocking: opening a FIFO no one writes to would wait forever.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new SourcesFileError(`cannot read the sources file ${file}: ${cut((error as Error).message)}`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      const what = info.isDirectory() ? 'a folder' : info.isFIFO() ? 'a FIFO' : 'a device or socket';
      throw new SourcesFileError(`the sources file ${file} is ${what}, not a regular file; name a YAML file`);
    }
    if (info.size > MAX_SOURCES_FILE_BYTES) throw tooLarge(file, info.size);
    // One byte more than allowed: a file that grew since it was looked at is refused too.
    const buffer = Buffer.alloc(Math.min(info.size, MAX_SOURCES_FILE_BYTES) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, length);
    if (length > MAX_SOURCES_FILE_BYTES) throw tooLarge(file, length);
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (error instanceof SourcesFileError) throw error;
    throw new SourcesFileError(`cannot read the sources file ${file}: ${cut((error as Error).message)}`);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(file: string, bytes: number): SourcesFileError {
  return new SourcesFileError(
    `the sources file ${file} is ${(bytes / 2 ** 20).toFixed(1)} MB or more; a sources file is at most ${MAX_SOURCES_FILE_BYTES >> 20} MB (use folder: entries for many archives)`,
  );
}

/** A text for a message, cut where it is long. */
function cut(text: string, most = 200): string {
  return text.length > most ? `${text.slice(0, most)}…` : text;
}

function specsOf(
  entry: unknown,
  where: string,
  base: string,
): PortalSpec[] | { folder: string; queryTimeout?: number } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new SourcesFileError(`${where}: each source is a mapping such as {archive: file.aiida}`);
  }
  const e = entry as Record<string, unknown>;
  const kinds = KINDS.filter((k) => k in e);
  if (kinds.length !== 1) {
    throw new SourcesFileError(
      `${where}: give exactly one of ${KINDS.join(', ')} (found ${kinds.join(', ') || 'none'})`,
    );
  }
  const unknown = Object.keys(e).filter((k) => !KINDS.includes(k as never) && !SETTINGS.includes(k));
  if (unknown.length > 0) {
    throw new SourcesFileError(
      `${where}: unknown setting ${cut(unknown.join(', '), 100)}; settings are ${SETTINGS.join(', ')}`,
    );
  }
  const kind = kinds[0]!;
  const text = (key: string): string | undefined => {
    const value = e[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '')
      throw new SourcesFileError(`${where}: ${key} must be a non-empty text`);
    if (value.length > (key === 'name' ? 100 : MAX_TEXT)) {
      throw new SourcesFileError(
        `${where}: ${key} is ${value.length} characters long (${JSON.stringify(cut(value, 40))}); at most ${key === 'name' ? 100 : MAX_TEXT}`,
      );
    }
    return value;
  };
  const queryTimeout = e.query_timeout;
  if (
    queryTimeout !== undefined &&
    (typeof queryTimeout !== 'number' || !(queryTimeout > 0) || !(queryTimeout <= MAX_QUERY_TIMEOUT_S))
  ) {
    throw new SourcesFileError(
      `${where}: query_timeout must be a number of seconds above 0 and at most ${MAX_QUERY_TIMEOUT_S} (found ${cut(String(queryTimeout), 40)})`,
    );
  }
  const replicas = e.replicas;
  if (
    replicas !== undefined &&
    (kind !== 'postgres' ||
      !Array.isArray(replicas) ||
      !replicas.every((r) => typeof r === 'string' && /^postgres(ql)?:\/\//.test(r)))
  ) {
    throw new SourcesFileError(
      `${where}: replicas are a list of postgres:// URLs, for a postgres source only`,
    );
  }
  if (e.repository !== undefined && kind !== 'postgres') {
    throw new SourcesFileError(`${where}: repository is a setting of a postgres source only`);
  }
  const value = text(kind) as string;
  const name = text('name');
  const common = { ...(queryTimeout === undefined ? {} : { queryTimeout: queryTimeout as number }) };
  switch (kind) {
    case 'folder': {
      if (name !== undefined)
        throw new SourcesFileError(
          `${where}: a folder's sources are named by their files; name is not a setting of folder`,
        );
      return { folder: existing(resolve(base, value), where), ...common };
    }
    case 'archive':
    case 'sqlite_dos': {
      if (kind === 'archive' && isRemoteArchive(value)) return [remoteSpec(value, name, common.queryTimeout)];
      const path = existing(resolve(base, value), where);
      const probe = kind === 'archive' ? path : `${path}/database.sqlite`;
      if (!existsSync(probe))
        throw new SourcesFileError(
          `${where}: ${path} is not a core.sqlite_dos folder (it has no database.sqlite)`,
        );
      return [
        {
          name: name ?? nameFrom(path),
          kind: kind === 'archive' ? 'archive' : 'sqlite-profile',
          origin: path,
          path,
          // A file removed after the file was read is an error of its first request, not of the whole portal.
          version: `${fileVersion(probe) ?? 'missing'}:${common.queryTimeout ?? ''}`,
          ...common,
        },
      ];
    }
    case 'postgres': {
      if (!/^postgres(ql)?:\/\//.test(value))
        throw new SourcesFileError(`${where}: postgres is a postgres:// URL`);
      const repository = text('repository');
      if (repository === undefined) {
        throw new SourcesFileError(
          `${where}: a postgres source needs repository: (the profile's file repository folder)`,
        );
      }
      if (name === undefined) throw new SourcesFileError(`${where}: a postgres source needs a name`);
      const settings = {
        url: value,
        repository: resolve(base, repository),
        replicas: (replicas as string[]) ?? [],
      };
      return [
        {
          name,
          kind: 'postgres-profile',
          origin: redact(value),
          ...settings,
          version: JSON.stringify([settings, common]),
          ...common,
        },
      ];
    }
    case 'profile':
      return [
        {
          name: name ?? nameFrom(value),
          // Which storage the profile uses is known once it is opened (AiiDA's config.json says).
          kind: 'postgres-profile',
          origin: `profile ${value}`,
          profile: value,
          version: JSON.stringify([value, common]),
          ...common,
        },
      ];
  }
}

/**
 * A path the file names must be there when the file is read (at the start, on SIGHUP): a typo would otherwise be
 * a source "added" whose every request says it cannot be opened.
 */
function existing(path: string, where: string): string {
  if (!existsSync(path)) throw new SourcesFileError(`${where}: ${path} does not exist`);
  return path;
}

/** A URL without its password, for the index and messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
