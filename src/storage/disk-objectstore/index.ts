/**
 * Read-only access to a disk-objectstore container, the file repository of live AiiDA profiles
 * (core.psql_dos, core.sqlite_dos): loose objects (`loose/<prefix>/<rest>`, stored as they are) and packed ones
 * (`packs/<n>`, located by the index `packs.idx`, raw or zlib-compressed). Objects are streamed, never read
 * whole, and checked against their key as they pass. Nothing is ever written into the container.
 */
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createInflate } from 'node:zlib';
import { defaultCacheDir } from '../cache-dir.js';
import type { Repository, RepositoryObject } from '../types.js';
import { containerSettings, type ContainerSettings } from './container-folder.js';
import { PackIndex, type PackedEntry } from './pack-index.js';
import { corruptObject, verifiedStream, type ObjectPlace } from './verified-stream.js';

export { CorruptObjectError } from './verified-stream.js';
export type { PackedEntry } from './pack-index.js';

/** Only a sha256 key in its canonical form ever becomes a path, so no key can reach outside the container. */
const KEY = /^[0-9a-f]{64}$/;

export interface OpenContainerOptions {
  /** Where the private copy of the pack index goes; Quarry's cache folder by default. */
  cacheDir?: string;
}

export class DiskObjectStore implements Repository {
  private closed = false;

  private constructor(
    readonly settings: ContainerSettings,
    private readonly index: PackIndex,
  ) {}

  static async open(folder: string, options: OpenContainerOptions = {}): Promise<DiskObjectStore> {
    const settings = await containerSettings(folder);
    const index = await PackIndex.open(settings.folder, options.cacheDir ?? defaultCacheDir());
    return new DiskObjectStore(settings, index);
  }

  /** The container folder (holding config.json). */
  get folder(): string {
    return this.settings.folder;
  }

  /**
   * disk-objectstore's order: the pack index, then the loose file, then the index again once refreshed
   * (the object may have been packed, and its loose copy removed, since the index was last read).
   */
  async get(key: string): Promise<RepositoryObject | undefined> {
    if (this.closed) throw new Error('the disk-objectstore container was closed');
    if (!KEY.test(key)) return undefined;
    this.index.poke();
    const packed = this.index.lookup(key);
    if (packed) return this.packedObject(key, packed);
    const loose = await this.looseObject(key);
    if (loose) return loose;
    await this.index.refresh();
    const repacked = this.index.lookup(key);
    return repacked ? this.packedObject(key, repacked) : undefined;
  }

  private async looseObject(key: string): Promise<RepositoryObject | undefined> {
    const n = this.settings.loosePrefixLength;
    const relative = n === 0 ? `loose/${key}` : `loose/${key.slice(0, n)}/${key.slice(n)}`;
    const path = join(this.folder, relative);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const place: ObjectPlace = { key, size: info.size, where: relative };
    return {
      size: info.size,
      stream: async () => {
        const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw corruptObject(place, error.message);
          return undefined;
        });
        if (handle) return verifiedStream(handle.createReadStream(), place);
        // Packed and cleaned up since `get`: the index, once refreshed, knows where it went.
        await this.index.refresh();
        const packed = this.index.lookup(key);
        if (!packed) throw corruptObject(place, 'it was removed from the container while being read');
        return this.packedObject(key, packed).stream();
      },
    };
  }

  private packedObject(key: string, entry: PackedEntry): RepositoryObject {
    const pack = join(this.folder, 'packs', String(entry.packId));
    const where = `packs/${entry.packId} bytes ${entry.offset}-${entry.offset + entry.length}${entry.compressed ? ', zlib' : ''}`;
    const place: ObjectPlace = { key, size: entry.size, where };
    return {
      size: Math.max(entry.size, 0),
      stream: async () => {
        if (entry.packId < 0)
          throw corruptObject({ ...place, where: 'packs.idx' }, 'its index row is invalid');
        const handle = await open(pack, 'r').catch((error: Error) => {
          throw corruptObject(place, `the pack cannot be opened (${error.message})`);
        });
        try {
          const { size } = await handle.stat();
          if (entry.offset + entry.length > size) {
            throw corruptObject(place, `the pack is truncated (it has ${size} bytes)`);
          }
        } catch (error) {
          await handle.close().catch(() => undefined);
          throw error;
        }
        if (entry.length === 0) {
          await handle.close().catch(() => undefined);
          return verifiedStream(Readable.from([]), place);
        }
        const raw = handle.createReadStream({ start: entry.offset, end: entry.offset + entry.length - 1 });
        return verifiedStream(raw, place, entry.compressed ? createInflate() : undefined);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.index.close();
  }
}

/**
 * Open a disk-objectstore container read-only: `folder` is the container itself or a profile's repository
 * folder holding `container/`. Throws StorageOpenError (one line saying what to do) for anything else.
 */
export function openContainer(folder: string, options?: OpenContainerOptions): Promise<Repository> {
  return DiskObjectStore.open(folder, options);
}
