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
 * Relative paths are taken from the file's folder. Every mistake is an error naming the entry and what to fix.
 */
import { readFileSync } from 'node:fs';
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

/** The sources a file names, and the folders it names (scanned again while serving, as folders given on the command line). */
export interface SourcesFile {
  specs: PortalSpec[];
  folders: { folder: string; queryTimeout?: number }[];
  /** `optimade_default: NAME`: the source of the plain `/optimade/v1/` (see docs/optimade.md). */
  optimadeDefault?: string;
}

export function readSourcesFile(file: string): SourcesFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SourcesFileError(`cannot read the sources file ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new SourcesFileError(`${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const list = (document as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(list)) {
    throw new SourcesFileError(
      `${file} must hold a list under "sources:" (see docs/portal.md for an example)`,
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
      `${where}: unknown setting ${unknown.join(', ')}; settings are ${SETTINGS.join(', ')}`,
    );
  }
  const kind = kinds[0]!;
  const text = (key: string): string | undefined => {
    const value = e[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '')
      throw new SourcesFileError(`${where}: ${key} must be a non-empty text`);
    return value;
  };
  const queryTimeout = e.query_timeout;
  if (queryTimeout !== undefined && (typeof queryTimeout !== 'number' || !(queryTimeout > 0))) {
    throw new SourcesFileError(`${where}: query_timeout must be a positive number of seconds`);
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
      return { folder: resolve(base, value), ...common };
    }
    case 'archive':
    case 'sqlite_dos': {
      if (kind === 'archive' && isRemoteArchive(value)) return [remoteSpec(value, name, common.queryTimeout)];
      const path = resolve(base, value);
      const probe = kind === 'archive' ? path : `${path}/database.sqlite`;
      return [
        {
          name: name ?? nameFrom(path),
          kind: kind === 'archive' ? 'archive' : 'sqlite-profile',
          origin: path,
          path,
          // A file that is missing now is an error of its first request, not of the whole portal.
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
