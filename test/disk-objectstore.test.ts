/**
 * The disk-objectstore reader on the real containers of the rich profile (787 loose objects; the same packed
 * into one zlib-compressed pack): every object the nodes refer to, byte for byte; unknown and malformed
 * keys; damaged packs; a container that changes while served; and no file written into the container.
 */
import { cpSync, readdirSync, rmSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { CorruptObjectError, DiskObjectStore, openContainer } from '../src/storage/disk-objectstore.js';
import { StorageOpenError } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { readAll, repositoryKeys, sha256, tempDir } from './storage-fixtures.js';
import { archiveDatabase, unpackContainer } from './support/profile-fixtures.js';

const tarballs = { loose: 'rich-container-loose.tar.gz', packed: 'rich-container-packed.tar.gz' };

/** Every file path under a folder, for checking that nothing was added. */
function listing(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
}

describe('disk-objectstore containers', () => {
  let keys: string[];
  const containers: Record<string, string> = {};

  beforeAll(async () => {
    const db = join(tempDir(), 'db.sqlite3');
    await archiveDatabase(richFile('rich.aiida'), db);
    const sqlite = new BetterSqlite3(db, { readonly: true });
    const rows = sqlite.prepare('SELECT repository_metadata AS m FROM db_dbnode').all() as { m: string }[];
    sqlite.close();
    keys = [...repositoryKeys(rows.map((r) => r.m))];
    for (const [kind, tarball] of Object.entries(tarballs)) {
      containers[kind] = await unpackContainer(richFile(tarball), tempDir());
    }
  }, 60_000);

  describe.each(Object.keys(tarballs))('%s', (kind) => {
    it('gives every object the nodes refer to, with the content its key names, and writes nothing', async () => {
      const folder = containers[kind] as string;
      const before = listing(folder);
      const store = await openContainer(folder, tempDir());
      try {
        expect(keys.length).toBeGreaterThan(100);
        for (const key of keys) {
          const object = await store.get(key);
          expect(object, key).toBeDefined();
          const data = await readAll(await object!.stream());
          expect(data.length).toBe(object!.size);
          expect(sha256(data)).toBe(key);
        }
        expect(await store.get('0'.repeat(64))).toBeUndefined();
        for (const bad of ['../config.json', keys[0]!.toUpperCase(), keys[0]!.slice(0, 10), `${keys[0]}/x`]) {
          expect(await store.get(bad)).toBeUndefined();
        }
      } finally {
        await store.close();
      }
      expect(listing(folder)).toEqual(before);
    });
  });

  it('opens a profile repository folder that holds container/, and refuses other folders', async () => {
    const parent = join(containers.loose as string, '..');
    cpSync(containers.loose as string, join(parent, 'container'), { recursive: true });
    const store = await openContainer(parent, tempDir());
    expect(await store.get(keys[0]!)).toBeDefined();
    await store.close();
    await expect(openContainer(tempDir())).rejects.toThrow(StorageOpenError);
  });

  it('fails the stream, not the process, when a pack is damaged', async () => {
    const folder = join(tempDir(), 'damaged');
    cpSync(containers.packed as string, folder, { recursive: true });
    const pack = join(folder, 'packs', '0');
    const bytes = readFileSync(pack);
    // Flip bytes in the middle of the pack (inside some compressed object), then cut its end off.
    for (let i = bytes.length / 2; i < bytes.length / 2 + 64; i++) bytes[i] = (bytes[i] as number) ^ 0xff;
    writeFileSync(pack, bytes);
    truncateSync(pack, Math.floor(bytes.length * 0.9));
    const store = await openContainer(folder, tempDir());
    let damaged = 0;
    for (const key of keys) {
      const object = await store.get(key);
      try {
        const data = await readAll(await object!.stream());
        expect(sha256(data)).toBe(key);
      } catch (error) {
        expect(error).toBeInstanceOf(CorruptObjectError);
        damaged++;
      }
    }
    await store.close();
    expect(damaged).toBeGreaterThan(0);
  });

  it('finds objects packed while it serves (a new index snapshot)', async () => {
    const folder = join(tempDir(), 'live');
    cpSync(containers.loose as string, folder, { recursive: true });
    const store = (await openContainer(folder, tempDir())) as DiskObjectStore;
    expect(await store.get(keys[0]!)).toBeDefined();
    // `verdi storage maintain` packs the loose objects: new packs.idx and packs/, no loose files.
    rmSync(join(folder, 'loose'), { recursive: true });
    cpSync(join(containers.packed as string, 'loose'), join(folder, 'loose'), { recursive: true });
    cpSync(join(containers.packed as string, 'packs'), join(folder, 'packs'), { recursive: true });
    cpSync(join(containers.packed as string, 'packs.idx'), join(folder, 'packs.idx'));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const object = await store.get(keys[1]!);
    expect(object).toBeDefined();
    expect(sha256(await readAll(await object!.stream()))).toBe(keys[1]);
    await store.close();
  });
});
