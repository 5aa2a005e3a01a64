/**
 * The `.aiida` archive backend: `metadata.json` and `db.sqlite3` inside a zip, repository files as
 * `repo/<sha256>`. The database is extracted once into the cache and opened read-only; repository files are
 * read from the zip on demand, never unpacked.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { defaultCacheDir } from '../cache-dir.js';
import type { ProgressCallback } from '../observe.js';
import {
  StorageOpenError,
  type Database,
  type QuerySettings,
  type Repository,
  type RepositoryObject,
  type StorageBackend,
} from '../types.js';
import { openCopy } from './copy-pool.js';
import { extractDatabase } from './extract.js';
import { openLegacyArchive } from './legacy/open.js';
import { isTarFile } from './legacy/tar-unpack.js';
import { MAX_JSON_DEPTH } from './legacy/limits.js';
import { isLegacyVersion } from './legacy/versions.js';
import { keptSummary } from './kept-summaries.js';
import { typeOrderTable } from './type-order.js';
import { isRemote, openRemoteZip, RemoteWatch } from './remote.js';
import { nestsDeeper, oneLine, openZip, shownValue, type ZipArchive } from './zip.js';

/**
 * Export versions whose db.sqlite3 has the schema Quarry reads. `1.0` is the pre-release label of
 * main_0000; main_0000a and main_0000b are the steps between main_0000 and main_0001 (nullability only).
 */
const SUPPORTED_VERSIONS = new Set(['1.0', 'main_0000', 'main_0000a', 'main_0000b', 'main_0001']);
/** metadata.json is a few kB; anything huge is not one, and must not be read into memory. */
const MAX_METADATA_BYTES = 16 << 20;

export interface OpenArchiveOptions extends QuerySettings {
  /** Where the extracted database goes; default: see defaultCacheDir(). */
  cacheDir?: string;
  /** Told how far a first extraction of the database has come (src/storage/archive/extract.ts says the steps). */
  onExtractProgress?: ProgressCallback;
  /**
   * How long to wait while another process extracts the same archive into the same cache folder before the
   * open fails with a 503 that says when to come back (default: as long as it takes).
   */
  extractWaitMs?: number;
  /** An archive at a URL: how often, at most, to ask its server whether the file was replaced (default 10 s). */
  revalidateMs?: number;
  /** The name it is served under, for messages (a portal's source name). */
  sourceName?: string;
  /** Where the warnings of an AiiDA 1.x archive's conversion go, one line each (default: stderr). */
  onWarning?: (line: string) => void;
}

export async function openArchive(file: string, options: OpenArchiveOptions = {}): Promise<StorageBackend> {
  let zip: ZipArchive;
  let watch: RemoteWatch | undefined;
  // AiiDA 0.x/1.x archives that are not zips: an extracted folder, or a tar.gz (legacy/open.ts).
  if (!isRemote(file)) {
    const info = await stat(file).catch(() => undefined);
    if (info?.isDirectory() && (await isLegacyFolder(file)))
      return openLegacyArchive({ folder: file }, options);
    if (info?.isFile() && (await isTarFile(file))) return openLegacyArchive({ tar: file }, options);
  }
  if (isRemote(file)) {
    const remote = await openRemoteZip(file);
    if ('tar' in remote) {
      const remoteWatch = new RemoteWatch(remote.tar, options.revalidateMs);
      const legacy = await openLegacyArchive({ remoteTar: remote }, options);
      return {
        ...legacy,
        revalidationDue: () => remoteWatch.due(),
        revalidate: () => remoteWatch.revalidate(),
      };
    }
    zip = remote.zip;
    watch = new RemoteWatch(remote.reader, options.revalidateMs);
  } else zip = await openZip(file);
  let db: Database | undefined;
  try {
    const metadata = await readMetadata(zip);
    if (isLegacyVersion(metadata.export_version)) {
      const legacy = await openLegacyArchive({ zip }, options);
      if (watch === undefined) return legacy;
      return { ...legacy, revalidationDue: () => watch.due(), revalidate: () => watch.revalidate() };
    }
    if (!zip.get('db.sqlite3')) {
      throw new StorageOpenError(
        `${zip.file} has no db.sqlite3 although its metadata says export version ${String(metadata.export_version)}; the archive is incomplete: export it again`,
      );
    }
    const cacheDir = options.cacheDir ?? defaultCacheDir();
    const dbFile = await extractDatabase(zip, cacheDir, options.onExtractProgress, options.extractWaitMs);
    db = await openCopy(
      dbFile,
      options,
      (reason) =>
        `${zip.file}: its database cannot be read (${reason}); if the archive is fine, delete ${dbFile} and start again`,
    );
    const backend = {
      ...archiveBackend(file, metadata, db, zip, await archiveIdentity(zip)),
      cacheDir,
      nodeTypeOrder: await typeOrderTable(db),
    };
    if (watch === undefined) return backend;
    return {
      ...backend,
      repository: zipRepository(zip, true, options.sourceName),
      revalidationDue: () => watch.due(),
      revalidate: () => watch.revalidate(),
    };
  } catch (error) {
    await db?.close();
    zip.close();
    throw error;
  }
}

function archiveBackend(
  file: string,
  metadata: Record<string, unknown>,
  db: Database,
  zip: ZipArchive,
  identity: string,
): StorageBackend {
  let closed = false;
  return {
    name: basename(isRemote(file) ? new URL(file).pathname : file).replace(/\.aiida$/, ''),
    kind: 'archive',
    aiidaVersion: typeof metadata.aiida_version === 'string' ? metadata.aiida_version : 'unknown',
    exportVersion: String(metadata.export_version),
    ...(isRemote(file) ? {} : { file }),
    identity,
    db,
    repository: zipRepository(zip),
    keptSummary: (name) => keptSummary(db, name),
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
      // Streams still being read keep the file open until they end (yauzl counts references).
      zip.close();
    },
  };
}

/**
 * The archive's content, named without reading it all: the hash of the zip's central directory (every entry's
 * name, sizes and CRC-32) and the file's size. Unlike the extracted copy's name it leaves the file's mtime
 * out, so a copy of the file on another machine has the same identity.
 */
async function archiveIdentity(zip: ZipArchive): Promise<string> {
  const { size } = await zip.origin();
  return createHash('sha256').update(`${size}\0${zip.fingerprint}`).digest('base64url').slice(0, 32);
}

async function readMetadata(zip: ZipArchive): Promise<Record<string, unknown>> {
  const file = zip.file;
  const entry = zip.get('metadata.json');
  if (!entry) {
    throw new StorageOpenError(
      `${file} has no metadata.json, so it is not an AiiDA archive; create one with 'verdi archive create'`,
    );
  }
  let metadata: unknown;
  try {
    if (entry.size > MAX_METADATA_BYTES) throw new Error(`it is ${entry.size} bytes`);
    metadata = JSON.parse((await zip.read('metadata.json')).toString('utf8'));
  } catch (error) {
    // A remote archive's server gone meanwhile: come back later, not "damaged".
    if ((error as { status?: unknown }).status === 503) throw error;
    throw new StorageOpenError(
      `${file}: metadata.json cannot be read (${oneLine((error as Error).message)}); the archive is damaged: copy or export it again`,
    );
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new StorageOpenError(`${file}: metadata.json is not a JSON object; the archive is damaged`);
  }
  if (nestsDeeper(metadata, MAX_JSON_DEPTH)) {
    throw new StorageOpenError(
      `${file}: metadata.json nests values more than ${MAX_JSON_DEPTH} levels deep, which no AiiDA archive does; the archive is damaged`,
    );
  }
  const version = (metadata as { export_version?: unknown }).export_version;
  if (typeof version === 'string' && (SUPPORTED_VERSIONS.has(version) || isLegacyVersion(version))) {
    return metadata as Record<string, unknown>;
  }
  throw new StorageOpenError(versionProblem(file, version));
}

function versionProblem(file: string, version: unknown): string {
  if (version === undefined) {
    return `${file}: metadata.json has no export_version, so this is not an archive Quarry can read`;
  }
  const shown = shownValue(version);
  if (typeof version === 'string' && /^0\.\d+$/.test(version)) {
    return `${file} has the unknown export version ${shown}; Quarry reads 0.1 to 0.13 and main_0000 to main_0001`;
  }
  if (typeof version === 'string' && /^main_\d{4}/.test(version)) {
    // aiida-core's development branches write competing main_0002s: none can be read by its name alone.
    return `${file} has export version ${shown}, which no released AiiDA writes (AiiDA 2.x writes main_0000 to main_0001; later ones come from aiida-core's development branch); Quarry reads 0.1 to 0.13 and main_0000 to main_0001: export it again with a released AiiDA`;
  }
  return `${file} has an unknown export version ${shown}; Quarry reads main_0000 to main_0001 (convert older archives with 'verdi archive migrate')`;
}

/**
 * The stream once its first bytes are read: a remote archive's range request answered (or refused) before the
 * answer's headers are sent, so a server down or a file replaced gives a clear error answer. (A stream that
 * fails before its first byte is otherwise answered 500 by Fastify.)
 */
async function primed(stream: Readable): Promise<Readable> {
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  return Readable.from(
    (async function* () {
      try {
        if (first.done === true) return;
        yield first.value as Buffer;
        for (let next = await chunks.next(); next.done !== true; next = await chunks.next())
          yield next.value as Buffer;
      } finally {
        // Also when the answer's reader stopped early: the request for the rest ends.
        await chunks.return?.();
      }
    })(),
    { objectMode: false },
  );
}

/** `remote`: an archive at a URL, whose reads can fail (503, 502) with a message that names the source. */
function zipRepository(zip: ZipArchive, remote = false, sourceName?: string): Repository {
  const named = (error: unknown): never => {
    const status = (error as { status?: unknown }).status;
    if (sourceName === undefined || (status !== 502 && status !== 503)) throw error;
    throw Object.assign(new Error(`the source "${sourceName}": ${(error as Error).message}`), {
      status,
      retryAfter: (error as { retryAfter?: unknown }).retryAfter,
    });
  };
  return {
    async get(key: string): Promise<RepositoryObject | undefined> {
      const name = `repo/${key}`;
      const entry = zip.get(name);
      if (!entry) return undefined;
      // Only a remote archive's reads can fail before their first byte for reasons other than damage.
      const stream = (): Promise<Readable> =>
        remote ? zip.openStream(name).then(primed).catch(named) : zip.openStream(name);
      return { size: entry.size, stream };
    },
    // The zip belongs to the backend, which closes it after the database.
    async close() {},
  };
}

/** A folder holding an extracted legacy archive: metadata.json and data.json. */
export async function isLegacyFolder(folder: string): Promise<boolean> {
  const files = await Promise.all(
    ['metadata.json', 'data.json'].map((name) => stat(join(folder, name)).catch(() => undefined)),
  );
  return files.every((info) => info?.isFile() === true);
}
