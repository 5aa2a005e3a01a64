/**
 * The index of packed objects (`packs.idx`, SQLite), read without ever writing into the container.
 *
 * disk-objectstore keeps packs.idx in WAL mode, and SQLite gives every connection to a WAL database a `-wal`
 * and a `-shm` file beside it, even a read-only one (`readonly: true` still creates and leaves them); the
 * `immutable=1` URI parameter that would avoid this is unavailable, since better-sqlite3 is built without URI
 * filenames (SQLITE_USE_URI=0). So Quarry reads a snapshot: packs.idx and its -wal (the commits not yet
 * checkpointed) are copied into Quarry's cache, the copy is folded into one rollback-journal file there, and
 * opened read-only. The copy costs about 190 bytes per packed object, once per change of the index; the
 * index only changes when objects are packed (`verdi storage maintain`), so a snapshot lives long.
 *
 * A snapshot can lag behind the container: every miss checks whether the index changed and, if so, takes a
 * new snapshot before answering; hits trigger the same check in the background at most once a second. A
 * stale hit can at worst point at moved bytes, which the sha256 check of the stream then refuses.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StorageOpenError } from '../types.js';

export interface PackedEntry {
  compressed: boolean;
  size: number;
  offset: number;
  length: number;
  packId: number;
}

interface IndexRow {
  compressed: unknown;
  size: unknown;
  offset: unknown;
  length: unknown;
  pack_id: unknown;
}

/** What changes when the index is written: identity, size and time of packs.idx and of its -wal. */
async function stampOf(file: string): Promise<string> {
  const part = async (path: string) => {
    const info = await stat(path, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return info ? `${info.ino}:${info.size}:${info.mtimeNs}` : '-';
  };
  return `${await part(file)}|${await part(`${file}-wal`)}`;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** One private, read-only copy of the index. */
class Snapshot {
  private readonly lookup: BetterSqlite3.Statement<[string], IndexRow>;

  private constructor(
    private readonly folder: string,
    private readonly db: BetterSqlite3.Database,
  ) {
    this.lookup = db.prepare(
      'SELECT compressed, size, "offset", length, pack_id FROM db_object WHERE hashkey = ?',
    );
  }

  /** Copy `source` (and its -wal) into a new folder under `base`; a copy taken while the index changed is retaken. */
  static async take(
    source: string,
    base: string,
    stamp: string,
  ): Promise<{ snapshot: Snapshot; stamp: string }> {
    for (let attempt = 1; ; attempt++) {
      const folder = await mkdtemp(join(base, `${process.pid}-`));
      try {
        const copy = join(folder, 'packs.idx');
        await copyFile(source, copy, constants.COPYFILE_FICLONE);
        await copyFile(`${source}-wal`, `${copy}-wal`, constants.COPYFILE_FICLONE).catch(
          (error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          },
        );
        const after = await stampOf(source);
        // After a few tries, a busy writer's copy is still usable: SQLite ignores WAL frames torn by the copy.
        if (after !== stamp && attempt < 3) {
          stamp = after;
          await rm(folder, { recursive: true, force: true });
          continue;
        }
        return { snapshot: Snapshot.openCopy(folder, copy), stamp: after };
      } catch (error) {
        await rm(folder, { recursive: true, force: true });
        throw error;
      }
    }
  }

  private static openCopy(folder: string, copy: string): Snapshot {
    // Fold the copied WAL into the copy so that the read-only connection needs no -wal or -shm at all.
    const writable = new BetterSqlite3(copy, { fileMustExist: true });
    try {
      writable.pragma('journal_mode = DELETE');
    } finally {
      writable.close();
    }
    const db = new BetterSqlite3(copy, { readonly: true, fileMustExist: true });
    try {
      // Nobody else opens this copy: keep its lock and page cache between lookups.
      db.pragma('locking_mode = EXCLUSIVE');
      return new Snapshot(folder, db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The row for `key`; a row with impossible values is returned as-is for the reader to refuse. */
  get(key: string): PackedEntry | undefined {
    const row = this.lookup.get(key);
    if (!row) return undefined;
    const valid = [row.size, row.offset, row.length, row.pack_id].every(isCount);
    return {
      compressed: row.compressed === 1 || row.compressed === true,
      size: valid ? (row.size as number) : -1,
      offset: valid ? (row.offset as number) : -1,
      length: valid ? (row.length as number) : -1,
      packId: valid ? (row.pack_id as number) : -1,
    };
  }

  async close(): Promise<void> {
    this.db.close();
    await rm(this.folder, { recursive: true, force: true });
  }
}

/** Remove the snapshots of Quarry processes that ended without closing their containers. */
async function removeOrphans(base: string): Promise<void> {
  for (const name of await readdir(base).catch(() => [])) {
    const pid = Number(name.split('-')[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') {
        await rm(join(base, name), { recursive: true, force: true }).catch(() => undefined);
      }
    }
  }
}

export class PackIndex {
  private snapshot?: Snapshot;
  private stamp = '-|-';
  private lastCheck = 0;
  private ticks = 0;
  private checking?: { started: number; done: Promise<void> };
  private closed = false;

  private constructor(
    private readonly source: string,
    private readonly base: string,
  ) {}

  /** The index of the container `folder`; snapshots go under `cacheDir`. */
  static async open(folder: string, cacheDir: string): Promise<PackIndex> {
    const base = join(cacheDir, 'pack-index');
    try {
      await mkdir(base, { recursive: true });
    } catch (error) {
      throw new StorageOpenError(
        `cannot create ${base} for a copy of the container's index (${(error as Error).message}); set QUARRY_CACHE_DIR to a writable folder`,
      );
    }
    await removeOrphans(base);
    const index = new PackIndex(join(folder, 'packs.idx'), base);
    try {
      await index.refresh();
    } catch (error) {
      throw new StorageOpenError(
        `${index.source} cannot be read as a disk-objectstore index (${(error as Error).message}); check the container with \`dostore validate\``,
      );
    }
    return index;
  }

  /** Synchronous: an index lookup in a local file takes microseconds. */
  lookup(key: string): PackedEntry | undefined {
    return this.snapshot?.get(key);
  }

  /** Look for a change of the index in the background, at most once a second. */
  poke(): void {
    if (this.checking || this.closed || Date.now() - this.lastCheck < 1_000) return;
    // A failure here keeps the current snapshot; the next miss retries and reports it.
    this.refresh().catch(() => undefined);
  }

  /** Make the snapshot current as of this call: share a check that starts later, else run one. */
  async refresh(): Promise<void> {
    const asked = this.ticks;
    while (this.checking) {
      const { started, done } = this.checking;
      await done.catch(() => undefined);
      if (started > asked) return done;
    }
    if (this.closed) return;
    const check = { started: ++this.ticks, done: this.check() };
    this.checking = check;
    try {
      await check.done;
    } finally {
      if (this.checking === check) this.checking = undefined;
    }
  }

  private async check(): Promise<void> {
    this.lastCheck = Date.now();
    const stamp = await stampOf(this.source);
    if (stamp === this.stamp) return;
    const next = stamp.startsWith('-|') ? undefined : await Snapshot.take(this.source, this.base, stamp);
    const previous = this.snapshot;
    if (this.closed) {
      await next?.snapshot.close();
      return;
    }
    this.snapshot = next?.snapshot;
    this.stamp = next?.stamp ?? stamp;
    // Lookups are synchronous, so none is using the previous snapshot now.
    await previous?.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.checking?.done.catch(() => undefined);
    const snapshot = this.snapshot;
    this.snapshot = undefined;
    await snapshot?.close();
  }
}
