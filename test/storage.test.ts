/** The archive backend on synthetic archives: opening, files, concurrency, refusals. */
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { openZip } from '../src/storage/archive/zip.js';
import { openArchive, StorageOpenError } from '../src/storage/index.js';
import { CorruptObjectError } from '../src/storage/types.js';
import {
  cachedFiles,
  readAll,
  sha256,
  syntheticArchive,
  tempDir,
  zipOf,
  type Synthetic,
} from './storage-fixtures.js';

async function refusal(file: string): Promise<string> {
  const error = await openArchive(file, { cacheDir: tempDir() }).then(
    async (backend) => {
      await backend.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error, `${file} was accepted`).toBeInstanceOf(StorageOpenError);
  const message = (error as Error).message;
  expect(message).not.toMatch(/\n|\s+at .+:\d+:\d+/);
  return message;
}

describe('archive storage', () => {
  let synthetic: Synthetic;
  beforeAll(async () => {
    synthetic = await syntheticArchive(60);
  });

  it('serves the database and the repository files of an archive', async () => {
    const b = await openArchive(synthetic.file, { cacheDir: tempDir() });
    expect(b.name).toBe('synthetic');
    expect(b.kind).toBe('archive');
    expect(b.aiidaVersion).toBe('2.6.3');
    expect(await b.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode WHERE id > ?', params: [10] })).toEqual(
      [{ n: synthetic.nodes - 10 }],
    );
    for (const [key, content] of synthetic.objects) {
      const object = await b.repository.get(key);
      expect(object?.size).toBe(content.length);
      const data = await readAll(await object!.stream());
      expect(sha256(data)).toBe(key);
    }
    expect(await b.repository.get('0'.repeat(64))).toBeUndefined();
    // `repo/` is a folder entry in real archives; it is no object.
    expect(await b.repository.get('')).toBeUndefined();
    await b.close();
  });

  it('refuses a damaged repository file with a CorruptObjectError and goes on serving the others', async () => {
    for (const compressed of [true, false]) {
      const file = await zipOf(synthetic.entries, `damaged-${compressed}.aiida`, compressed);
      const [bad, good] = [...synthetic.objects.keys()] as [string, string];
      const content = synthetic.objects.get(good);
      // Flip bytes in the middle of the entry's data, found behind its local header.
      const bytes = readFileSync(file);
      const header = bytes.indexOf(Buffer.from(`repo/${bad}`)) - 30;
      const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
      const size = bytes.readUInt32LE(header + 18);
      for (let at = start + Math.floor(size / 2), k = 0; k < 4; k++)
        bytes.writeUInt8(bytes.readUInt8(at + k) ^ 0x5a, at + k);
      writeFileSync(file, bytes);
      const b = await openArchive(file, { cacheDir: tempDir() });
      try {
        const damaged = b.repository.get(bad).then(async (o) => readAll(await o!.stream()));
        await expect(damaged).rejects.toBeInstanceOf(CorruptObjectError);
        await expect(damaged).rejects.toThrow(/damaged/);
        expect(await readAll(await (await b.repository.get(good))!.stream())).toEqual(content);
      } finally {
        await b.close();
      }
    }
  });

  it('reads stored (uncompressed) archives too', async () => {
    const file = await zipOf(synthetic.entries, 'stored.aiida', false);
    const b = await openArchive(file, { cacheDir: tempDir() });
    const [key, content] = [...synthetic.objects][3]!;
    expect(await readAll(await (await b.repository.get(key))!.stream())).toEqual(content);
    await b.close();
  });

  it('accepts export versions 1.0, main_0000 and main_0001', async () => {
    for (const version of ['1.0', 'main_0000', 'main_0001']) {
      const { file } = await syntheticArchive(2, { version });
      const b = await openArchive(file, { cacheDir: tempDir() });
      expect(await b.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] })).toEqual([{ n: 2 }]);
      await b.close();
    }
  });

  it('reports SQL errors as ordinary errors', async () => {
    const b = await openArchive(synthetic.file, { cacheDir: tempDir() });
    await expect(b.db.all({ sql: 'SELECT nope FROM db_dbnode', params: [] })).rejects.toThrow(
      /no such column/,
    );
    await b.close();
  });

  it('never writes to the extracted database', async () => {
    const cacheDir = tempDir();
    const b = await openArchive(synthetic.file, { cacheDir });
    const cached = join(cacheDir, 'archives', cachedFiles(cacheDir)[0]!);
    const before = sha256(readFileSync(cached));
    await expect(b.db.all({ sql: 'DELETE FROM db_dbnode RETURNING id', params: [] })).rejects.toThrow(
      /readonly|read-only|query_only/i,
    );
    await expect(b.db.all({ sql: 'CREATE INDEX i ON db_dbnode (node_type)', params: [] })).rejects.toThrow();
    await b.close();
    expect(sha256(readFileSync(cached))).toBe(before);
    expect(before).toBe(sha256(synthetic.entries['db.sqlite3'] as Buffer));
  });

  it('serves 200 concurrent file reads interleaved with queries', async () => {
    const b = await openArchive(synthetic.file, { cacheDir: tempDir() });
    const keys = [...synthetic.objects.keys()];
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const key = keys[i % keys.length]!;
        const [object, rows] = await Promise.all([
          b.repository.get(key),
          b.db.all({
            sql: 'SELECT id FROM db_dbnode WHERE repository_metadata LIKE ?',
            params: [`%${key}%`],
          }),
        ]);
        const data = await readAll(await object!.stream());
        return sha256(data) === key && data.length === object!.size && rows.length === 1;
      }),
    );
    expect(results.filter((ok) => !ok)).toEqual([]);
    await b.close();
  });

  it('lets a stream opened before close() finish, and refuses new ones after', async () => {
    const b = await openArchive(synthetic.file, { cacheDir: tempDir() });
    const [key, content] = [...synthetic.objects].find(([, c]) => c.length > 100_000)!;
    const object = (await b.repository.get(key))!;
    const stream = await object.stream();
    await b.close();
    expect((await readAll(stream)).equals(content)).toBe(true);
    await expect(object.stream()).rejects.toThrow(/closed/);
  });
});

describe('archives Quarry cannot serve', () => {
  it('refuses each with one line that says what is wrong and what to do', async () => {
    const dir = tempDir();
    const junk = join(dir, 'junk.aiida');
    writeFileSync(junk, randomBytes(5000));
    expect(await refusal(junk)).toMatch(/not a zip file/);

    const { file } = await syntheticArchive(20);
    const cut = join(dir, 'cut.aiida');
    copyFileSync(file, cut);
    truncateSync(cut, Math.floor(statSync(file).size / 2));
    expect(await refusal(cut)).toMatch(/truncated zip.*copy or download/);

    // AiiDA 1.x archives are converted (legacy-own-archives.test.ts); a version of that format none wrote is not.
    const legacy = await zipOf({ 'metadata.json': '{"export_version": "0.14"}', 'data.json': '{}' });
    expect(await refusal(legacy)).toMatch(/unknown export version "0\.14"/);

    const tarGz = join(dir, 'old.aiida');
    writeFileSync(tarGz, gzipSync(Buffer.alloc(2048)));
    expect(await refusal(tarGz)).toMatch(/no metadata\.json, so it is not an AiiDA archive/);

    const noDb = await zipOf({ 'metadata.json': '{"export_version": "main_0001"}', 'repo/': '' });
    expect(await refusal(noDb)).toMatch(/no db\.sqlite3/);

    expect(await refusal(await zipOf({ 'readme.txt': 'hello' }))).toMatch(/no metadata\.json/);
    expect(await refusal(await zipOf({ 'metadata.json': '{"export_' }))).toMatch(
      /metadata\.json cannot be read/,
    );
    expect(await refusal(await zipOf({ 'metadata.json': '{}' }))).toMatch(/no export_version/);
    expect(await refusal(await zipOf({ 'metadata.json': '{"export_version": "main_0002"}' }))).toMatch(
      /"main_0002", which no released AiiDA writes .*Quarry reads 0\.1 to 0\.13 and main_0000 to main_0001/,
    );
    expect(await refusal(await zipOf({ 'metadata.json': '{"export_version": "2.5"}' }))).toMatch(
      /unknown export version/,
    );

    const notADatabase = await zipOf({
      'metadata.json': '{"export_version": "main_0001"}',
      'db.sqlite3': 'this is not SQLite',
    });
    expect(await refusal(notADatabase)).toMatch(/database cannot be read/);

    expect(await refusal(join(dir, 'missing.aiida'))).toMatch(/no such file/);
    expect(await refusal(dir)).toMatch(/is a folder/);
  });
});

/** A zip of one stored entry whose local header carries an extra field of `extraLength` bytes. */
function zipWithLongHeader(name: string, content: Buffer, extraLength: number): Buffer {
  const fileName = Buffer.from(name);
  const extra = Buffer.alloc(extraLength);
  extra.writeUInt16LE(0xcafe, 0);
  extra.writeUInt16LE(extraLength - 4, 2);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc32(content), 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  local.writeUInt16LE(extraLength, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc32(content), 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(local.length + fileName.length + extra.length + content.length, 16);
  return Buffer.concat([local, fileName, extra, content, central, fileName, end]);
}

describe('zip entries', () => {
  it('reads a small entry whose local header is longer than usual (a large extra field)', async () => {
    const content = randomBytes(3000);
    const file = join(tempDir(), 'long-header.zip');
    writeFileSync(file, zipWithLongHeader('repo/long', content, 2000));
    const zip = await openZip(file);
    try {
      expect(await zip.read('repo/long')).toEqual(content);
    } finally {
      zip.close();
    }
  });
});
