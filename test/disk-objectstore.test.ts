/**
 * The disk-objectstore reader on the real containers of the rich profile (787 loose objects; the same objects
 * in one zlib-compressed pack) and on containers built here from them (raw and compressed packs, an index
 * whose commits are still in its WAL, damaged packs): every object the nodes refer to, byte for byte; unknown
 * and malformed keys; damage reported on the stream; objects packed while served; nothing written into the
 * container.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CorruptObjectError,
  DiskObjectStore,
  openContainer,
  type PackedEntry,
} from '../src/storage/disk-objectstore/index.js';
import { StorageOpenError, type Repository } from '../src/storage/types.js';
import { conformanceDir } from './conformance/replay.js';
import { readAll, repositoryKeys, sha256, tempDir } from './storage-fixtures.js';
import { archiveDatabase, unpackContainer } from './support/profile-fixtures.js';

const dataDir = join(conformanceDir(), 'data');
const tarballs = { loose: 'rich-container-loose.tar.gz', packed: 'rich-container-packed.tar.gz' };
const available = [...Object.values(tarballs), 'rich.aiida'].every((t) => existsSync(join(dataDir, t)));

const temporary: string[] = [];
function scratch(): string {
  const folder = tempDir();
  temporary.push(folder);
  return folder;
}

/** Every path under a folder with its size and modification time: any file added or written shows. */
function fingerprint(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((path) => {
      const info = statSync(join(folder, path));
      return `${path} ${info.isFile() ? info.size : 'dir'} ${info.mtimeMs}`;
    });
}

/** The bytes of an object, or the error its stream (or the opening of it) ended with. */
async function outcome(store: Repository, key: string): Promise<Buffer | Error> {
  const object = await store.get(key);
  if (!object) throw new Error(`${key} not found`);
  try {
    return await readAll(await object.stream());
  } catch (error) {
    return error as Error;
  }
}

/** Every loose object of a container, by key. */
function looseObjects(container: string): Map<string, Buffer> {
  const objects = new Map<string, Buffer>();
  for (const prefix of readdirSync(join(container, 'loose'))) {
    for (const rest of readdirSync(join(container, 'loose', prefix))) {
      objects.set(prefix + rest, readFileSync(join(container, 'loose', prefix, rest)));
    }
  }
  return objects;
}

/** The index rows of a container, read from a copy so that the container itself is left alone. */
function indexRows(container: string): Map<string, PackedEntry> {
  const copy = join(scratch(), 'packs.idx');
  cpSync(join(container, 'packs.idx'), copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  const rows = db
    .prepare('SELECT hashkey, compressed, size, "offset", length, pack_id FROM db_object')
    .all() as {
    hashkey: string;
    compressed: number;
    size: number;
    offset: number;
    length: number;
    pack_id: number;
  }[];
  db.close();
  return new Map(rows.map((r) => [r.hashkey, { ...r, compressed: r.compressed === 1, packId: r.pack_id }]));
}

/**
 * A container as disk-objectstore lays it out (prefix length 3 here): a third of the objects loose, a third
 * raw in packs/0, a third zlib-compressed in packs/1. Its index stays open in WAL mode with checkpoints off,
 * as under a live AiiDA process, so that every row is still in packs.idx-wal. Returns that writer.
 */
function buildContainer(folder: string, objects: Map<string, Buffer>): BetterSqlite3.Database {
  for (const sub of ['loose', 'packs', 'sandbox', 'duplicates'])
    mkdirSync(join(folder, sub), { recursive: true });
  writeFileSync(
    join(folder, 'config.json'),
    JSON.stringify({
      container_version: 1,
      loose_prefix_len: 3,
      pack_size_target: 4294967296,
      hash_type: 'sha256',
      container_id: 'quarry-test',
      compression_algorithm: 'zlib+1',
    }),
  );
  const db = new BetterSqlite3(join(folder, 'packs.idx'));
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec(`CREATE TABLE db_object (id INTEGER NOT NULL, hashkey VARCHAR NOT NULL, compressed BOOLEAN NOT NULL,
    size INTEGER NOT NULL, "offset" INTEGER NOT NULL, length INTEGER NOT NULL, pack_id INTEGER NOT NULL,
    PRIMARY KEY (id)); CREATE UNIQUE INDEX ix_db_object_hashkey ON db_object (hashkey)`);
  const insert = db.prepare(
    'INSERT INTO db_object (hashkey, compressed, size, "offset", length, pack_id) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const packs: Buffer[][] = [[], []];
  const offsets = [0, 0];
  let i = 0;
  db.transaction(() => {
    for (const [key, content] of objects) {
      const place = i++ % 3;
      if (place === 2) {
        mkdirSync(join(folder, 'loose', key.slice(0, 3)), { recursive: true });
        writeFileSync(join(folder, 'loose', key.slice(0, 3), key.slice(3)), content);
        continue;
      }
      const stored = place === 1 ? deflateSync(content, { level: 1 }) : content;
      insert.run(key, place, content.length, offsets[place], stored.length, place);
      packs[place]!.push(stored);
      offsets[place]! += stored.length;
    }
  })();
  packs.forEach((parts, id) => writeFileSync(join(folder, 'packs', String(id)), Buffer.concat(parts)));
  return db;
}

describe.skipIf(!available)('disk-objectstore containers', () => {
  let keys: string[];
  const containers: Record<string, string> = {};

  beforeAll(async () => {
    const db = join(scratch(), 'db.sqlite3');
    await archiveDatabase(join(dataDir, 'rich.aiida'), db);
    const sqlite = new BetterSqlite3(db, { readonly: true });
    const rows = sqlite.prepare('SELECT repository_metadata AS m FROM db_dbnode').all() as { m: string }[];
    sqlite.close();
    keys = [...repositoryKeys(rows.map((r) => r.m))];
    for (const [kind, tarball] of Object.entries(tarballs)) {
      containers[kind] = await unpackContainer(join(dataDir, tarball), scratch());
    }
  }, 60_000);

  afterAll(() => {
    for (const folder of temporary) rmSync(folder, { recursive: true, force: true });
  });

  describe.each(Object.keys(tarballs))('the %s container', (kind) => {
    it('gives every object the nodes refer to, with the content its key names, and writes nothing', async () => {
      const folder = containers[kind] as string;
      const before = fingerprint(folder);
      const cacheDir = scratch();
      const store = await openContainer(folder, { cacheDir });
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
        const key = keys[0]!;
        const malformed = [
          '../config.json',
          '../../packs.idx',
          key.toUpperCase(),
          key.slice(0, 10),
          `${key}/x`,
          '',
        ];
        for (const bad of [...malformed, `${key.slice(0, 2)}/${key.slice(2)}`, `${key}0`]) {
          expect(await store.get(bad), bad).toBeUndefined();
        }
      } finally {
        await store.close();
      }
      expect(fingerprint(folder)).toEqual(before);
      expect(readdirSync(folder).filter((f) => f.startsWith('packs.idx'))).toEqual(['packs.idx']);
      // The private copy of the index is gone with the store.
      expect(readdirSync(join(cacheDir, 'pack-index'))).toEqual([]);
    });
  });

  it('reads raw and compressed packs and loose files, with index rows still in the WAL of a live writer', async () => {
    const folder = join(scratch(), 'built');
    const objects = looseObjects(containers.loose as string);
    const writer = buildContainer(folder, objects);
    try {
      expect(statSync(join(folder, 'packs.idx-wal')).size).toBeGreaterThan(
        statSync(join(folder, 'packs.idx')).size,
      );
      const before = fingerprint(folder);
      const store = await openContainer(folder, { cacheDir: scratch() });
      for (const [key, content] of objects) {
        const object = await store.get(key);
        expect(object?.size, key).toBe(content.length);
        expect((await readAll(await object!.stream())).equals(content)).toBe(true);
      }
      await store.close();
      expect(fingerprint(folder)).toEqual(before);
    } finally {
      writer.close();
    }
  });

  it('opens a profile repository folder that holds container/, and refuses other folders with advice', async () => {
    const parent = scratch();
    cpSync(containers.packed as string, join(parent, 'container'), { recursive: true });
    const store = await openContainer(parent, { cacheDir: scratch() });
    expect(sha256(await readAll(await (await store.get(keys[0]!))!.stream()))).toBe(keys[0]);
    await store.close();
    for (const folder of [
      scratch(),
      join(scratch(), 'absent'),
      join(containers.loose as string, 'config.json'),
    ]) {
      const error = await openContainer(folder).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageOpenError);
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).toMatch(/repository folder/);
    }
    const broken = join(scratch(), 'broken');
    cpSync(containers.loose as string, broken, { recursive: true });
    writeFileSync(join(broken, 'packs.idx'), 'not a database');
    await expect(openContainer(broken, { cacheDir: scratch() })).rejects.toThrow(StorageOpenError);
  });

  it('reports a truncated pack or damaged compressed bytes as a CorruptObjectError, and keeps serving', async () => {
    const folder = join(scratch(), 'damaged');
    cpSync(containers.packed as string, folder, { recursive: true });
    const rows = indexRows(folder);
    const pack = join(folder, 'packs', '0');
    // Damage the middle of the largest object, then cut the pack in the middle of the last one.
    const [largest] = [...rows].sort((a, b) => b[1].length - a[1].length);
    const [last] = [...rows].sort((a, b) => b[1].offset - a[1].offset);
    const bytes = readFileSync(pack);
    const middle = largest![1].offset + Math.floor(largest![1].length / 2);
    for (let i = middle; i < middle + 16; i++) bytes[i] = (bytes[i] as number) ^ 0xff;
    writeFileSync(pack, bytes);
    truncateSync(pack, last![1].offset + Math.floor(last![1].length / 2));

    const store = await openContainer(folder, { cacheDir: scratch() });
    for (const key of [largest![0], last![0]]) {
      const result = await outcome(store, key);
      expect(result, key).toBeInstanceOf(CorruptObjectError);
      expect((result as Error).message).toContain(key);
    }
    expect(((await outcome(store, last![0])) as Error).message).toMatch(/truncated/);
    // The objects around them are still served.
    const intact = keys.filter((k) => k !== largest![0] && k !== last![0]).slice(0, 50);
    for (const key of intact) expect(sha256((await outcome(store, key)) as Buffer)).toBe(key);
    await store.close();
  });

  it('refuses bytes that are not what the index promised: flipped raw bytes, a wrong size, a missing pack', async () => {
    const folder = join(scratch(), 'built');
    const objects = looseObjects(containers.loose as string);
    const writer = buildContainer(folder, objects);
    const raw = writer
      .prepare('SELECT hashkey, "offset", length FROM db_object WHERE pack_id = 0 AND length > 100 LIMIT 2')
      .all() as { hashkey: string; offset: number; length: number }[];
    const [flipped, resized] = raw;
    const compressed = writer
      .prepare('SELECT hashkey FROM db_object WHERE pack_id = 1 LIMIT 1')
      .pluck()
      .get();
    writer.prepare('UPDATE db_object SET size = size + 1 WHERE hashkey = ?').run(resized!.hashkey);
    writer.close();
    const pack = readFileSync(join(folder, 'packs', '0'));
    pack[flipped!.offset + 50] = (pack[flipped!.offset + 50] as number) ^ 1;
    writeFileSync(join(folder, 'packs', '0'), pack);
    rmSync(join(folder, 'packs', '1'));

    const store = await openContainer(folder, { cacheDir: scratch() });
    const messages: Record<string, RegExp> = {
      [flipped!.hashkey]: /sha256/,
      [resized!.hashkey]: /of the recorded/,
      [compressed as string]: /cannot be opened/,
    };
    for (const [key, message] of Object.entries(messages)) {
      const result = await outcome(store, key);
      expect(result, key).toBeInstanceOf(CorruptObjectError);
      expect((result as Error).message).toMatch(message);
    }
    await store.close();
  });

  it('finds objects packed while it serves, even between get() and stream()', async () => {
    const folder = join(scratch(), 'live');
    cpSync(containers.loose as string, folder, { recursive: true });
    const store = (await openContainer(folder, { cacheDir: scratch() })) as DiskObjectStore;
    const early = await store.get(keys[0]!);
    expect(early).toBeDefined();
    // What `verdi storage maintain` does: a new pack and index, then the loose copies removed.
    cpSync(join(containers.packed as string, 'packs'), join(folder, 'packs'), { recursive: true });
    cpSync(join(containers.packed as string, 'packs.idx'), join(folder, 'packs.idx'));
    rmSync(join(folder, 'loose'), { recursive: true });
    mkdirSync(join(folder, 'loose'));
    const late = await store.get(keys[1]!);
    expect(sha256(await readAll(await late!.stream()))).toBe(keys[1]);
    expect(sha256(await readAll(await early!.stream()))).toBe(keys[0]);
    expect(await store.get('f'.repeat(64))).toBeUndefined();
    await store.close();
  });
});
