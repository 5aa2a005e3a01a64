/**
 * Read-only access to a disk-objectstore container, the file repository of live AiiDA profiles: loose
 * objects (`loose/<prefix>/<rest>`, stored as they are) and packed ones (`packs/<n>`, located by the SQLite
 * index `packs.idx`, raw or zlib-compressed). Objects are streamed, never read whole.
 *
 * The index is a WAL-mode SQLite file, and SQLite creates `-wal`/`-shm` files beside any WAL database it
 * opens, even read-only. Quarry never writes into the data it serves, so it reads a snapshot of the index
 * copied into its cache, and takes a new one when a key is missing and the index changed since.
 */
import {
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { createInflate } from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import { defaultCacheDir } from './cache-dir.js';
import { CorruptObjectError, StorageOpenError, type Repository, type RepositoryObject } from './types.js';

export { CorruptObjectError };

const SHA256_KEY = /^[0-9a-f]{64}$/;
/** A new index snapshot at most this often, however many unknown keys are asked for. */
const REFRESH_INTERVAL_MS = 1_000;

interface PackedEntry {
  compressed: number;
  size: number;
  offset: number;
  length: number;
  pack_id: number;
}

interface ContainerConfig {
  loose_prefix_len?: number;
  hash_type?: string;
  container_id?: string;
}

/** A snapshot of packs.idx in the cache, with its lookup prepared. */
class IndexSnapshot {
  private readonly db: BetterSqlite3.Database;
  private readonly lookup: BetterSqlite3.Statement<[string], PackedEntry>;

  constructor(
    source: string,
    readonly stamp: string,
    private readonly folder: string,
  ) {
    copyFileSync(source, join(folder, 'packs.idx'));
    if (existsSync(`${source}-wal`)) copyFileSync(`${source}-wal`, join(folder, 'packs.idx-wal'));
    this.db = new BetterSqlite3(join(folder, 'packs.idx'), { fileMustExist: true });
    this.db.pragma('query_only = ON');
    this.lookup = this.db.prepare(
      'SELECT compressed, size, "offset", length, pack_id FROM db_object WHERE hashkey = ?',
    );
  }

  get(key: string): PackedEntry | undefined {
    return this.lookup.get(key);
  }

  close() {
    this.db.close();
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** Size, modification time and the WAL's of the index: what changes when objects are packed. */
function indexStamp(file: string): string {
  const part = (f: string) => (existsSync(f) ? `${statSync(f).size}:${statSync(f).mtimeMs}` : '-');
  return `${part(file)}|${part(`${file}-wal`)}`;
}

export class DiskObjectStore implements Repository {
  private snapshot?: IndexSnapshot;
  private checked = 0;
  private readonly prefixLength: number;

  private constructor(
    readonly folder: string,
    config: ContainerConfig,
    private readonly cacheDir: string,
  ) {
    this.prefixLength = config.loose_prefix_len ?? 2;
    this.refresh(true);
  }

  /** Open a container folder, or a profile's repository folder that holds `container/`. */
  static open(folder: string, cacheDir = defaultCacheDir()): DiskObjectStore {
    const candidates = [folder, join(folder, 'container')];
    const root = candidates.find((f) => existsSync(join(f, 'config.json')) && existsSync(join(f, 'loose')));
    if (!root) {
      throw new StorageOpenError(
        `${folder} is not a disk-objectstore container (no config.json and loose/); give the profile's repository folder or its container/`,
      );
    }
    let config: ContainerConfig;
    try {
      config = JSON.parse(readFileSync(join(root, 'config.json'), 'utf8')) as ContainerConfig;
    } catch (error) {
      throw new StorageOpenError(`${root}/config.json cannot be read: ${(error as Error).message}`);
    }
    if (config.hash_type !== undefined && config.hash_type !== 'sha256') {
      throw new StorageOpenError(`${root} uses the hash ${config.hash_type}; Quarry reads sha256 containers`);
    }
    return new DiskObjectStore(root, config, cacheDir);
  }

  /** Take a new snapshot of the index if it changed (or on `force`), at most once a second. */
  private refresh(force = false) {
    const now = Date.now();
    if (!force && now - this.checked < REFRESH_INTERVAL_MS) return;
    this.checked = now;
    const source = join(this.folder, 'packs.idx');
    if (!existsSync(source)) return;
    const stamp = indexStamp(source);
    if (this.snapshot?.stamp === stamp) return;
    const base = join(this.cacheDir, 'containers');
    mkdirSync(base, { recursive: true });
    const next = new IndexSnapshot(source, stamp, mkdtempSync(join(base, 'packs-')));
    this.snapshot?.close();
    this.snapshot = next;
  }

  async get(key: string): Promise<RepositoryObject | undefined> {
    // Only a well-formed key ever becomes a path: nothing can address a file outside the container.
    if (!SHA256_KEY.test(key)) return undefined;
    const loose = join(this.folder, 'loose', key.slice(0, this.prefixLength), key.slice(this.prefixLength));
    const info = await stat(loose).catch(() => undefined);
    if (info?.isFile()) {
      return { size: info.size, stream: async () => checked(createReadStream(loose), info.size, key) };
    }
    let entry = this.snapshot?.get(key);
    if (!entry) {
      this.refresh();
      entry = this.snapshot?.get(key);
    }
    return entry ? this.packed(key, entry) : undefined;
  }

  private packed(key: string, entry: PackedEntry): RepositoryObject {
    const pack = join(this.folder, 'packs', String(entry.pack_id));
    return {
      size: entry.size,
      stream: async () => {
        if (entry.length === 0) return checked(Readable.from([]), entry.size, key);
        const raw = createReadStream(pack, { start: entry.offset, end: entry.offset + entry.length - 1 });
        if (!entry.compressed) return checked(raw, entry.size, key);
        const inflate = createInflate();
        raw.on('error', (error) => inflate.destroy(error));
        inflate.on('error', () => raw.destroy());
        return checked(raw.pipe(inflate), entry.size, key);
      },
    };
  }

  async close(): Promise<void> {
    this.snapshot?.close();
    this.snapshot = undefined;
  }
}

/** Pass the bytes through, and fail the stream when they are not the promised size or cannot be read. */
function checked(source: Readable, size: number, key: string): Readable {
  let seen = 0;
  const corrupt = (why: string) =>
    new CorruptObjectError(
      `the stored object ${key} is damaged (${why}); check the container with verdi storage maintain`,
    );
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) done(corrupt(`more than ${size} bytes`));
      else done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : corrupt(`${seen} of ${size} bytes`));
    },
  });
  source.on('error', (error) => out.destroy(corrupt(error.message)));
  return source.pipe(out);
}

export function openContainer(folder: string, cacheDir?: string): Promise<Repository> {
  return Promise.resolve().then(() => DiskObjectStore.open(folder, cacheDir));
}
