/**
 * What an odd or hostile archive is told with: one line under 500 characters naming the archive (never the
 * cache folder's files) and what to do, however large or deep the value at fault; and the odd archives that
 * aiida-core or tar read, served as they read them (Python's NaN, a tar.gz holding an entry twice or starting
 * with another file).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { hostileTarGz } from './support/hostile-archives.js';
import { tinyEntries, tinyExport, UUID, writeLegacyZip } from './support/legacy-files.js';
import { tempDir } from './support/temp.js';

const opened: StorageBackend[] = [];
afterAll(async () => {
  for (const b of opened) await b.close();
});

async function open(file: string, cacheDir = tempDir('quarry-cache-')): Promise<StorageBackend> {
  const backend = await openArchive(file, { cacheDir, onWarning: () => undefined });
  opened.push(backend);
  return backend;
}

/** The message `file` is refused with, checked to be one short line that names no file of the cache. */
async function refusal(file: string, cacheDir = tempDir('quarry-cache-')): Promise<string> {
  try {
    await open(file, cacheDir);
  } catch (error) {
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(500);
    expect(message).not.toContain(cacheDir);
    expect(message.startsWith(file)).toBe(true);
    return message;
  }
  throw new Error(`${file} was served`);
}

const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

describe('messages of refused archives', () => {
  it('show a 10 MB export_version cut short', async () => {
    const dir = tempDir();
    for (const [name, version] of [
      ['legacy.aiida', `0.${'1'.repeat(10e6)}`],
      ['main.aiida', 'x'.repeat(10e6)],
    ] as const) {
      const file = join(dir, name);
      await writeLegacyZip(file, tinyEntries(undefined, { export_version: version }));
      expect(await refusal(file)).toMatch(
        /unknown export version "(0\.1+|x+)\.\.\. \(10000\d+ characters\); Quarry reads/,
      );
    }
  });

  it('say that metadata.json nests too deep, where the runtime ran out of stack', async () => {
    const dir = tempDir();
    for (const [name, metadata] of [
      ['deep-value.aiida', `{"export_version": "0.13", "x": ${deep}}`],
      ['deep-version.aiida', `{"export_version": ${deep}}`],
    ] as const) {
      const file = join(dir, name);
      await writeLegacyZip(file, tinyEntries(undefined, metadata));
      expect(await refusal(file)).toMatch(
        /metadata\.json nests values more than 1000 levels deep, which no AiiDA archive does/,
      );
    }
  });

  it('say that attributes or extras are not an object, where a step failed to set a key on them', async () => {
    const dir = tempDir();
    for (const version of ['0.3', '0.13']) {
      const { data, metadata } = tinyExport(version);
      (data.node_attributes as Record<string, unknown>)['2'] = 'x';
      const file = join(dir, `attributes-${version}.aiida`);
      await writeLegacyZip(file, tinyEntries(data, metadata));
      expect(await refusal(file)).toMatch(
        /data\.json: the attributes of node 2 are a string, not an object; the archive is damaged: export it again$/,
      );
    }
    const { data } = tinyExport();
    (data.node_extras as Record<string, unknown>)['1'] = [1];
    const file = join(dir, 'extras.aiida');
    await writeLegacyZip(file, tinyEntries(data));
    expect(await refusal(file)).toMatch(/data\.json: the extras of node 1 are a list, not an object/);
  });

  it('name the entry, not the cache folder, of a tar.gz holding a path as a file and as a folder', async () => {
    const file = join(tempDir(), 'clash.tar.gz');
    const entries = Object.entries(tinyEntries());
    await hostileTarGz(file, [...entries, ['nodes/ab/cd', 'a file'], ['nodes/ab/cd/ef/path/x', 'under it']]);
    const cacheDir = tempDir('quarry-cache-');
    expect(await refusal(file, cacheDir)).toMatch(
      /clash\.tar\.gz: it holds "nodes\/ab\/cd\/ef\/path\/x" both as a file and as a folder \(or inside a file\); the archive is damaged: export it again$/,
    );
    expect(readdirSync(join(cacheDir, 'archives')).filter((n) => /\.tmp|\.stage|\.files$/.test(n))).toEqual(
      [],
    );
  });
});

describe('odd archives served as aiida-core and tar read them', () => {
  it('serves NaN and Infinity as null', async () => {
    const file = join(tempDir(), 'nan.aiida');
    const { data } = tinyExport();
    (data.node_attributes as Record<string, unknown>)['3'] = { energy: '@@nan@@', finite: 1.5 };
    await writeLegacyZip(
      file,
      tinyEntries(JSON.stringify(data).replace('"@@nan@@"', '[NaN, -Infinity, "NaN"]')),
    );
    const app = await buildApp({ backends: [await open(file)] });
    try {
      const res = await app.inject({ url: `/api/v4/nodes/${UUID.out}/contents/attributes/` });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.attributes).toEqual({ energy: [null, null, 'NaN'], finite: 1.5 });
    } finally {
      await app.close();
    }
  });

  it('takes the last of an entry a tar.gz holds twice, as tar does', async () => {
    const file = join(tempDir(), 'twice.tar.gz');
    const { data } = tinyExport();
    data.export_data.Node['3']!.label = 'the later one';
    const entries = Object.entries(tinyEntries());
    await hostileTarGz(file, [...entries, ['data.json', JSON.stringify(data)]]);
    const backend = await open(file);
    const rows = await backend.db.all({
      sql: 'SELECT label FROM db_dbnode WHERE uuid = ?',
      params: [UUID.out],
    });
    expect(rows).toEqual([{ label: 'the later one' }]);
  });

  it('serves a tar.gz whose first entry is another file', async () => {
    const file = join(tempDir(), 'readme-first.tar.gz');
    await hostileTarGz(file, [['README.txt', 'An export.\n'], ...Object.entries(tinyEntries())]);
    const backend = await open(file);
    expect(backend.exportVersion).toBe('0.13');
    const rows = await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] });
    expect(rows).toEqual([{ n: 3 }]);
  });
});
