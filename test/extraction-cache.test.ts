/** The extraction cache: one copy per archive content, reused, replaced, and tidied when superseded. */
import { copyFileSync, readdirSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPLORER_GRID_QUERY } from '../src/bench/mix.js';
import { prepareQuery } from '../src/query/index.js';
import { extractionCount } from '../src/storage/archive/extract.js';
import { defaultCacheDir, openArchive } from '../src/storage/index.js';
import { richFile } from './conformance/corpus.js';
import { cachedFiles, syntheticArchive, tempDir } from './storage-fixtures.js';

describe('the extraction cache', () => {
  it('extracts the database once and reuses it on later opens', async () => {
    const { file } = await syntheticArchive(5);
    const cacheDir = tempDir();
    const before = extractionCount();
    await (await openArchive(file, { cacheDir })).close();
    expect(extractionCount()).toBe(before + 1);
    const [name] = cachedFiles(cacheDir);
    const first = statSync(join(cacheDir, 'archives', name!));

    await (await openArchive(file, { cacheDir })).close();
    expect(extractionCount()).toBe(before + 1);
    expect(cachedFiles(cacheDir)).toEqual([name]);
    const second = statSync(join(cacheDir, 'archives', name!));
    expect([second.ino, second.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
  });

  it('extracts once when one archive is opened several times at once, leaving no temporary files', async () => {
    const { file } = await syntheticArchive(5);
    const cacheDir = tempDir();
    const before = extractionCount();
    const backends = await Promise.all([1, 2, 3].map(() => openArchive(file, { cacheDir })));
    await Promise.all(backends.map((b) => b.close()));
    expect(extractionCount()).toBe(before + 1);
    expect(cachedFiles(cacheDir)).toHaveLength(1);
    expect(cachedFiles(cacheDir)[0]).toMatch(/^synthetic-[0-9a-f]{32}\.sqlite3$/);
  });

  it('extracts again when the archive changes, and when the cached copy is damaged', async () => {
    const a = await syntheticArchive(5);
    const cacheDir = tempDir();
    await (await openArchive(a.file, { cacheDir })).close();
    const [first] = cachedFiles(cacheDir);
    const b = await syntheticArchive(6);
    copyFileSync(b.file, a.file);
    const reopened = await openArchive(a.file, { cacheDir });
    expect(await reopened.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] })).toEqual([
      { n: 6 },
    ]);
    await reopened.close();
    // The copy of the archive as it was is gone: nothing uses it any more.
    expect(cachedFiles(cacheDir)).toHaveLength(1);
    expect(cachedFiles(cacheDir)).not.toContain(first);

    // A copy cut short (say by a full disk outside Quarry's control) is not trusted.
    for (const name of cachedFiles(cacheDir)) truncateSync(join(cacheDir, 'archives', name), 100);
    const before = extractionCount();
    const again = await openArchive(a.file, { cacheDir });
    expect(await again.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] })).toEqual([
      { n: 6 },
    ]);
    await again.close();
    expect(extractionCount()).toBe(before + 1);
  });

  it('keeps the copies other archive files use: one of the same name elsewhere, an identical one', async () => {
    const cacheDir = tempDir();
    const nodes = async (file: string) => {
      const backend = await openArchive(file, { cacheDir });
      try {
        return (await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] }))[0]?.n;
      } finally {
        await backend.close();
      }
    };
    const a = (await syntheticArchive(5)).file;
    // An identical file (same bytes and time) elsewhere shares the copy of a.
    const twin = join(tempDir(), basename(a));
    copyFileSync(a, twin);
    for (const file of [a, twin]) utimesSync(file, 1_700_000_000, 1_700_000_000);
    // Another archive of the same name elsewhere has a copy of its own.
    const namesake = join(tempDir(), basename(a));
    copyFileSync((await syntheticArchive(7)).file, namesake);
    expect([await nodes(a), await nodes(twin), await nodes(namesake)]).toEqual([5, 5, 7]);
    const shared = cachedFiles(cacheDir);
    expect(shared).toHaveLength(2);

    // a is replaced: its new copy is made, and the one it shared with twin stays for twin.
    copyFileSync((await syntheticArchive(6)).file, a);
    expect(await nodes(a)).toBe(6);
    expect(cachedFiles(cacheDir)).toHaveLength(3);
    const before = extractionCount();
    expect([await nodes(twin), await nodes(namesake)]).toEqual([5, 7]);
    expect(extractionCount()).toBe(before);

    // twin is replaced too: the copy of the first content serves no file any more and goes.
    copyFileSync((await syntheticArchive(8)).file, twin);
    expect(await nodes(twin)).toBe(8);
    const now = cachedFiles(cacheDir);
    expect(now).toHaveLength(3);
    expect(now.filter((name) => shared.includes(name))).toHaveLength(1);
    expect(
      readdirSync(join(cacheDir, 'archives')).filter((n) => !/\.sqlite3(\.size|\.sources)?$/.test(n)),
    ).toEqual([]);
  });

  it('keeps a copy a running server still reads, and removes it at a later start once it is closed', async () => {
    const cacheDir = tempDir();
    const a = (await syntheticArchive(5)).file;
    const count = { sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] };
    const running = await openArchive(a, { cacheDir });
    try {
      copyFileSync((await syntheticArchive(6)).file, a);
      await (await openArchive(a, { cacheDir })).close();
      expect(cachedFiles(cacheDir)).toHaveLength(2);
      expect(await running.db.all(count)).toEqual([{ n: 5 }]);
    } finally {
      await running.close();
    }
    const reopened = await openArchive(a, { cacheDir });
    expect(await reopened.db.all(count)).toEqual([{ n: 6 }]);
    await reopened.close();
    expect(cachedFiles(cacheDir)).toHaveLength(1);
  });

  it('serves a database it could not summarise when extracting, without kept summaries', async () => {
    // The synthetic db_dbnode has no ctime or process_type: the statistics scan fails, the copy is still good.
    const { file } = await syntheticArchive(3);
    const backend = await openArchive(file, { cacheDir: tempDir() });
    try {
      expect(await backend.keptSummary?.('creationStatistics')).toBeUndefined();
      expect(await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] })).toEqual([
        { n: 3 },
      ]);
    } finally {
      await backend.close();
    }
  });

  it('says what to do when the cache folder cannot be written', async () => {
    const { file } = await syntheticArchive(2);
    const notAFolder = join(tempDir(), 'file');
    writeFileSync(notAFolder, '');
    await expect(openArchive(file, { cacheDir: notAFolder })).rejects.toThrow(/QUARRY_CACHE_DIR/);
  });

  it('lives in QUARRY_CACHE_DIR, else $XDG_CACHE_HOME/quarry, else ~/.cache/quarry', () => {
    expect(defaultCacheDir({ QUARRY_CACHE_DIR: '/q', XDG_CACHE_HOME: '/x' })).toBe('/q');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'quarry'));
    expect(defaultCacheDir({})).toBe(join(homedir(), '.cache', 'quarry'));
  });

  it('gives the planner the node types: the explorer grid reads in ctime order, a rare type by its index', async () => {
    const backend = await openArchive(richFile('rich.aiida'), { cacheDir: tempDir() });
    try {
      const plan = async (like: string) => {
        const dict = { ...EXPLORER_GRID_QUERY, filters: { node: { node_type: { like } } } };
        const { select, convert } = prepareQuery(dict, 'sqlite');
        const rows = await backend.db.all({
          sql: `EXPLAIN QUERY PLAN ${select.sql}`,
          params: select.params.map(convert),
        });
        return rows.map((r) => String(r.detail)).join('; ');
      };
      // Four fifths of the nodes: read newest first, no sort of them all (6-14 ms instead of 2 ms).
      const grid = await plan('data.%');
      expect(grid).toMatch(/ctime/);
      expect(grid).not.toMatch(/TEMP B-TREE/);
      // A handful of nodes: found through the type index, then sorted.
      expect(await plan('data.core.upf.%')).toMatch(/node_type/);
    } finally {
      await backend.close();
    }
  });
});
