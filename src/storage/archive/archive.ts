/**
 * The `.aiida` archive backend: `metadata.json` and `db.sqlite3` inside a zip, repository files as
 * `repo/<sha256>`. The database is extracted once into the cache and opened read-only; files are read from
 * the zip on demand.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { defaultCacheDir } from '../cache-dir.js';
import { SqliteWorkerPool } from '../sqlite-workers.js';
import { StorageOpenError, type Repository, type RepositoryObject, type StorageBackend } from '../types.js';
import { openEntry, openZip, readEntry, type ZipIndex } from './zip.js';

/** Export versions whose database is the SQLite schema we read; `1.0` was a pre-release label of main_0000. */
const SUPPORTED_VERSIONS = new Set(['main_0000', 'main_0001', '1.0']);

export interface OpenArchiveOptions {
  cacheDir?: string;
  /** Worker threads running queries (default 2). */
  workers?: number;
  /** Time limit of one query, in milliseconds (default 30 s). */
  queryTimeoutMs?: number;
}

export async function openArchive(file: string, options: OpenArchiveOptions = {}): Promise<StorageBackend> {
  const index = await openZip(file);
  try {
    const metadata = await readMetadata(file, index);
    const dbEntry = index.entries.get('db.sqlite3');
    if (!dbEntry) {
      throw new StorageOpenError(
        `${file} has no db.sqlite3: it is not an AiiDA 2.x archive; migrate it with 'verdi archive migrate'`,
      );
    }
    const dbFile = await extractOnce(file, index, options.cacheDir ?? defaultCacheDir());
    const db = await SqliteWorkerPool.open(dbFile, {
      size: options.workers,
      timeoutMs: options.queryTimeoutMs,
    });
    const name = basename(file).replace(/\.aiida$/, '');
    return {
      name,
      kind: 'archive',
      aiidaVersion: typeof metadata.aiida_version === 'string' ? metadata.aiida_version : 'unknown',
      db,
      repository: zipRepository(index),
      async close() {
        await db.close();
        index.zip.close();
      },
    };
  } catch (error) {
    index.zip.close();
    throw error;
  }
}

async function readMetadata(file: string, index: ZipIndex): Promise<Record<string, unknown>> {
  const entry = index.entries.get('metadata.json');
  if (!entry) throw new StorageOpenError(`${file} has no metadata.json: it is not an AiiDA archive`);
  let metadata: unknown;
  try {
    metadata = JSON.parse((await readEntry(index.zip, entry)).toString('utf8'));
  } catch (error) {
    throw new StorageOpenError(`${file}: metadata.json cannot be read (${(error as Error).message})`);
  }
  const version = (metadata as { export_version?: unknown })?.export_version;
  if (typeof version !== 'string' || !SUPPORTED_VERSIONS.has(version)) {
    const shown = typeof version === 'string' ? version : 'missing';
    const hint = /^0\./.test(shown)
      ? `it is an old JSON-based archive: convert it with 'verdi archive migrate ${basename(file)} new.aiida'`
      : 'Quarry reads export versions main_0000 and main_0001';
    throw new StorageOpenError(`${file} has export version ${shown}; ${hint}`);
  }
  return metadata as Record<string, unknown>;
}

/**
 * Extract db.sqlite3 into `<cacheDir>/archives/<identity>.sqlite3` unless it is already there. The identity
 * covers the archive's size, mtime and central directory, so an edited archive gets a fresh copy. Written
 * to a temporary name and renamed, so a crash or a concurrent start never sees half a file.
 */
async function extractOnce(file: string, index: ZipIndex, cacheDir: string): Promise<string> {
  const info = await stat(file);
  const identity = createHash('sha256')
    .update(`${info.size}\0${info.mtimeMs}\0${index.fingerprint}`)
    .digest('hex')
    .slice(0, 32);
  const dir = join(cacheDir, 'archives');
  const target = join(dir, `${identity}.sqlite3`);
  if (await exists(target)) return target;
  await mkdir(dir, { recursive: true });
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    const stream = await openEntry(index.zip, index.entries.get('db.sqlite3')!);
    await pipeline(stream, createWriteStream(temp));
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw new StorageOpenError(`${file}: db.sqlite3 cannot be extracted (${(error as Error).message})`);
  }
  return target;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function zipRepository(index: ZipIndex): Repository {
  return {
    async get(key: string): Promise<RepositoryObject | undefined> {
      const entry = index.entries.get(`repo/${key}`);
      if (!entry) return undefined;
      return { size: entry.uncompressedSize, stream: (): Promise<Readable> => openEntry(index.zip, entry) };
    },
    async close() {},
  };
}
