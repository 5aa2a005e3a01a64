/** Finding a disk-objectstore container on disk and reading the settings that decide where its objects are. */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StorageOpenError } from '../types.js';

export interface ContainerSettings {
  /** The container folder itself (holding config.json, loose/, packs/, packs.idx). */
  folder: string;
  /** How many leading characters of a key name the loose/ subfolder; 0 = loose/ is flat. */
  loosePrefixLength: number;
}

const HOW_TO =
  "give the profile's repository folder (repository_uri in AiiDA's config.json) or the container/ folder inside it";

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Accepts the container folder or a profile repository folder holding `container/`. */
export async function containerSettings(given: string): Promise<ContainerSettings> {
  const start = resolve(given);
  if (!(await isFolder(start))) throw new StorageOpenError(`${start} is not a folder; ${HOW_TO}`);
  const folder = (await isFile(join(start, 'config.json'))) ? start : join(start, 'container');
  const configFile = join(folder, 'config.json');
  if (!(await isFile(configFile)) || !(await isFolder(join(folder, 'loose')))) {
    throw new StorageOpenError(
      `${start} is not a disk-objectstore container (no config.json and loose/ in it or in its container/); ${HOW_TO}`,
    );
  }
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    if (typeof config !== 'object' || config === null) throw new Error('not a JSON object');
  } catch (error) {
    throw new StorageOpenError(
      `${configFile} cannot be read as a disk-objectstore configuration (${(error as Error).message}); ${HOW_TO}`,
    );
  }
  const hashType = config.hash_type ?? 'sha256';
  if (hashType !== 'sha256') {
    throw new StorageOpenError(
      `${folder} keys its objects by ${String(hashType)}; Quarry reads sha256 containers only`,
    );
  }
  // disk-objectstore knows only zlib (`zlib+<level>`); anything else would fail on the first compressed object.
  const compression = config.compression_algorithm ?? 'zlib+1';
  if (typeof compression !== 'string' || !/^zlib(\+\d)?$/.test(compression)) {
    throw new StorageOpenError(
      `${folder} compresses with ${String(compression)}; Quarry reads zlib-compressed containers only`,
    );
  }
  const prefix = config.loose_prefix_len ?? 2;
  if (typeof prefix !== 'number' || !Number.isInteger(prefix) || prefix < 0 || prefix >= 64) {
    throw new StorageOpenError(
      `${configFile} has a loose_prefix_len of ${JSON.stringify(prefix)}; fix or restore it`,
    );
  }
  return { folder, loosePrefixLength: prefix };
}
