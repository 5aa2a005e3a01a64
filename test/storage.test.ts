import { copyFileSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import yazl from 'yazl';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive, StorageOpenError } from '../src/storage/index.js';
import { smallArchive, tempDir } from './helpers.js';

async function zipOf(entries: Record<string, string>): Promise<string> {
  const file = join(tempDir(), 'x.aiida');
  const zip = new yazl.ZipFile();
  const out = createWriteStream(file);
  zip.outputStream.pipe(out);
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  await once(out, 'close');
  return file;
}

async function refusal(file: string): Promise<string> {
  try {
    await openArchive(file, { cacheDir: tempDir() });
  } catch (error) {
    expect(error).toBeInstanceOf(StorageOpenError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('the archive was accepted');
}

describe('archive storage', () => {
  let archive: string;
  beforeAll(async () => {
    archive = await smallArchive(300);
  });

  it('refuses what it cannot serve, in one line that says what to do', async () => {
    const junk = join(tempDir(), 'junk.aiida');
    writeFileSync(junk, Buffer.alloc(5000, 7));
    expect(await refusal(junk)).toMatch(/not a zip/);

    const truncated = join(tempDir(), 'cut.aiida');
    copyFileSync(archive, truncated);
    truncateSync(truncated, Math.floor(statSync(archive).size / 2));
    expect(await refusal(truncated)).toMatch(/zip/);

    expect(await refusal(await zipOf({ 'metadata.json': '{"export_version": "main_0001"}' }))).toMatch(
      /no db\.sqlite3/,
    );
    expect(
      await refusal(await zipOf({ 'metadata.json': '{"export_version": "0.9"}', 'data.json': '{}' })),
    ).toMatch(/verdi archive migrate/);
    expect(await refusal(await zipOf({ 'readme.txt': 'hello' }))).toMatch(/no metadata\.json/);
    expect(await refusal(join(tempDir(), 'missing.aiida'))).toMatch(/no such file/);
  });

  it('extracts the database once and reuses it', async () => {
    const cacheDir = tempDir();
    const first = await openArchive(archive, { cacheDir });
    await first.close();
    const extracted = readdirSync(join(cacheDir, 'archives'));
    expect(extracted).toHaveLength(1);
    const mtime = statSync(join(cacheDir, 'archives', extracted[0]!)).mtimeMs;
    const second = await openArchive(archive, { cacheDir });
    await second.close();
    expect(statSync(join(cacheDir, 'archives', extracted[0]!)).mtimeMs).toBe(mtime);
  });

  it('opens the database read-only', async () => {
    const b = await openArchive(archive, { cacheDir: tempDir() });
    await expect(b.db.all({ sql: 'DELETE FROM db_dbnode RETURNING id', params: [] })).rejects.toThrow(
      /readonly|read-only|query_only/i,
    );
    await b.close();
  });

  it('serves many concurrent file reads and queries', async () => {
    const b = await openArchive(archive, { cacheDir: tempDir() });
    const rows = await b.db.all({
      sql: 'SELECT repository_metadata AS r FROM db_dbnode WHERE repository_metadata LIKE \'%"k"%\' LIMIT 20',
      params: [],
    });
    const keys = rows.flatMap((r) =>
      [...(r.r as string).matchAll(/"k": ?"([0-9a-f]{64})"/g)].map((m) => m[1]!),
    );
    expect(keys.length).toBeGreaterThan(5);
    const reads = Array.from({ length: 200 }, async (_, i) => {
      const object = await b.repository.get(keys[i % keys.length]!);
      const chunks: Buffer[] = [];
      for await (const chunk of await object!.stream()) chunks.push(chunk as Buffer);
      await b.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] });
      return Buffer.concat(chunks).length === object!.size;
    });
    expect((await Promise.all(reads)).every(Boolean)).toBe(true);
    expect(await b.repository.get('0'.repeat(64))).toBeUndefined();
    await b.close();
    expect(readFileSync(archive).length).toBeGreaterThan(0);
  });
});
