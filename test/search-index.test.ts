/**
 * The search index beside an archive's copy: made with the copy (under its lock, once), made at the first
 * search for a copy that has none, removed with the copy when the archive is replaced, refused for a file
 * that is no AiiDA database; a search's statement stopped at its deadline; and the searches' lane, which
 * refuses with 503 and Retry-After rather than queue without end.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { beforeDeadline, SearchLate } from '../src/search/deadline.js';
import { buildIndex } from '../src/search/index-build.js';
import {
  completeMeta,
  ensureIndex,
  indexBeside,
  indexEveryCopy,
  readFigures,
} from '../src/search/index-file.js';
import { SearchIndexes } from '../src/search/indexes.js';
import { SearchLane } from '../src/search/lane.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { FileBudget } from '../src/storage/file-budget.js';
import { openArchive } from '../src/storage/index.js';
import { DEADLINE_EXTENSION } from '../src/storage/sqlite-extensions.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { smallArchive, tempDir } from './helpers.js';

async function copyOf(archive: string, cacheDir: string): Promise<{ copy: string; nodes: number }> {
  const backend = await openArchive(archive, { cacheDir });
  try {
    const rows = await backend.db.values({ sql: 'SELECT count(*) FROM db_dbnode', params: [] });
    return { copy: (backend.db as SqlitePool).file, nodes: Number(rows[0]![0]) };
  } finally {
    await backend.close();
  }
}

describe('the search index of a copy', () => {
  it('is made with the copy, once, and removed with it when the archive is replaced', async () => {
    indexEveryCopy();
    const cacheDir = tempDir('quarry-cache-');
    const folder = tempDir('quarry-search-');
    const archive = join(folder, 'data.aiida');
    await copyFile(await smallArchive(300, 11), archive);
    const { copy, nodes } = await copyOf(archive, cacheDir);
    const index = indexBeside(copy);
    expect(readFigures(index)).toMatchObject({ nodes, archiveBytes: statSync(archive).size });
    const made = statSync(index).mtimeMs;
    // Opened again: the same index, not made anew.
    await copyOf(archive, cacheDir);
    await ensureIndex(copy, {});
    expect(statSync(index).mtimeMs).toBe(made);

    // The archive replaced by another: its old copy goes, and its index with it.
    await rm(archive);
    await copyFile(await smallArchive(200, 12), archive);
    const replaced = await copyOf(archive, cacheDir);
    expect(replaced.copy).not.toBe(copy);
    expect(readFigures(indexBeside(replaced.copy))?.nodes).toBe(replaced.nodes);
    expect(existsSync(copy)).toBe(false);
    expect(existsSync(index)).toBe(false);
  });

  it('is made at the first search for a copy that has none', async () => {
    const cacheDir = tempDir('quarry-cache-');
    const { copy, nodes } = await copyOf(await smallArchive(250, 13), cacheDir);
    await rm(indexBeside(copy), { force: true });
    expect(readFigures(indexBeside(copy))).toBeUndefined();
    const figures = await ensureIndex(copy, { aiida_version: '2.6.0', export_version: 'main_0001' });
    expect(figures).toMatchObject({ nodes, aiidaVersion: '2.6.0', exportVersion: 'main_0001' });
    expect(figures.structures).toBeGreaterThan(0);
    expect(figures.processes).toBeGreaterThan(0);
  });

  it('is opened for searches with a small page cache of its own, and closed within the open-file budget', async () => {
    const cacheDir = tempDir('quarry-cache-');
    const { copy } = await copyOf(await smallArchive(250, 14), cacheDir);
    await ensureIndex(copy, {});
    const budget = new FileBudget(1, 0);
    const indexes = new SearchIndexes({} as SourceCatalog, budget);
    try {
      const open = indexes.open(indexBeside(copy))!;
      // A portal's process keeps hundreds of indexes open, and a search reads each of them: SQLite's default 2 MB
      // per connection was most of the memory of a portal of 1,000 sources.
      expect(open.db.pragma('cache_size', { simple: true })).toBe(-128);
      expect(open.db.prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(250);
      open.release();
      const other = await copyOf(await smallArchive(200, 15), cacheDir);
      await ensureIndex(other.copy, {});
      indexes.open(indexBeside(other.copy))!.release();
      // One file of budget: the first index was closed to open the second.
      expect(open.db.open).toBe(false);
    } finally {
      indexes.close();
    }
  });

  it('is held open for searches, and a process that finds it so still knows its versions', async () => {
    indexEveryCopy();
    const cacheDir = tempDir('quarry-cache-');
    const archive = await smallArchive(220, 16);
    const spec = { name: 'held', kind: 'archive' as const, origin: archive, version: '1' };
    const catalog = new SourceCatalog(() => openArchive(archive, { cacheDir }));
    catalog.add([spec]);
    const budget = new FileBudget(4, 0);
    // Another process's search: the index made with the copy (it knows the archive's size only) held open.
    const { copy } = await copyOf(archive, cacheDir);
    const index = indexBeside(copy);
    expect(readFigures(index)?.aiidaVersion).toBeNull();
    const other = new SearchIndexes({} as SourceCatalog, budget);
    const indexes = new SearchIndexes(catalog, budget);
    try {
      const held = other.open(index)!;
      expect(held.db.prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(220);
      // Its lock is kept between statements: the file cannot be written while it is open.
      expect(() => completeMeta(index, { aiida_version: 'x' })).toThrow(/locked|busy/i);
      await indexes.learned(10_000);
      const [state] = indexes.current();
      expect(state?.state).toMatchObject({ state: 'ready' });
      const backend = await openArchive(archive, { cacheDir });
      const expected = { aiidaVersion: backend.aiidaVersion, exportVersion: backend.exportVersion };
      await backend.close();
      expect(state?.state?.state === 'ready' && state.state.figures).toMatchObject(expected);
      held.release();
    } finally {
      other.close();
      indexes.close();
      await catalog.close();
    }
  });

  it('refuses a file that is no AiiDA database', () => {
    const dir = tempDir('quarry-search-');
    const bad = join(dir, 'bad.sqlite3');
    writeFileSync(bad, 'not a database');
    expect(() => buildIndex(bad, join(dir, 'out.search'))).toThrow();
  });
});

describe('a search statement', () => {
  it.skipIf(DEADLINE_EXTENSION === undefined)('is stopped at the deadline, and the next one runs', () => {
    const db = new BetterSqlite3(':memory:');
    try {
      const endless = db.prepare(
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
      );
      const started = Date.now();
      expect(() => beforeDeadline(db, Date.now() + 50, () => endless.get())).toThrow(SearchLate);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(beforeDeadline(db, Date.now() + 1_000, () => db.prepare('SELECT 1 AS one').get())).toEqual({
        one: 1,
      });
      expect(() => beforeDeadline(db, Date.now() - 1, () => 1)).toThrow(SearchLate);
      // A source's statements armed once: one run within the block is stopped at the block's deadline (not at
      // its own, later one), and the connection is disarmed after it.
      const nested = Date.now();
      expect(() =>
        beforeDeadline(db, Date.now() + 50, () =>
          beforeDeadline(db, Date.now() + 60_000, () => endless.get()),
        ),
      ).toThrow(SearchLate);
      expect(Date.now() - nested).toBeLessThan(2_000);
      expect(db.prepare('SELECT 2 AS two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});

describe('the searches lane', () => {
  it('lets a few run, queues a bounded number, and refuses the rest with 503 and Retry-After', async () => {
    const lane = new SearchLane(1, 1);
    const first = await lane.enter(Date.now() + 10_000);
    const second = lane.enter(Date.now() + 10_000);
    await expect(lane.enter(Date.now() + 10_000)).rejects.toMatchObject({ status: 503, retryAfter: 1 });
    first.leave();
    const turn = await second;
    // Waiting past its deadline: refused, not left waiting.
    await expect(lane.enter(Date.now() + 20)).rejects.toMatchObject({ status: 503 });
    turn.leave();
    (await lane.enter(Date.now() + 10)).leave();
  });
});
