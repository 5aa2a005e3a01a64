import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

/** A statement that takes well over the inline threshold: counting to 3 million in a recursive CTE. */
const SLOW = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c',
  params: [3_000_000],
};
const PAGE = {
  sql: 'SELECT id, uuid FROM db_dbnode ORDER BY ctime DESC, id ASC LIMIT 20 OFFSET 40',
  params: [],
};

describe('statements measured quick run in the server thread', () => {
  let backend: StorageBackend;
  let pool: SqlitePool;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 4), { cacheDir: tempDir() });
    pool = backend.db as SqlitePool;
  });
  afterAll(async () => backend.close());

  it('moves a quick statement of an archive inline after a run in a worker, with the same rows', async () => {
    expect(pool.runsInline(PAGE)).toBe(false);
    const first = await pool.all(PAGE);
    // Each worker run measures again; a busy machine may stretch one run of a 0.05 ms query past 1 ms.
    for (let run = 0; run < 5 && !pool.runsInline(PAGE); run++) await pool.all(PAGE);
    expect(pool.runsInline(PAGE)).toBe(true);
    expect(await pool.all(PAGE)).toEqual(first);
    expect(first).toHaveLength(20);
    // Other values are another statement: measured on their own.
    expect(pool.runsInline({ ...PAGE, sql: PAGE.sql.replace('OFFSET 40', 'OFFSET 60') })).toBe(false);
  });

  it('gives rows as arrays of the columns in order, from a worker and inline alike', async () => {
    const statement = { ...PAGE, sql: PAGE.sql.replace('OFFSET 40', 'OFFSET 80') };
    const objects = await pool.all(statement);
    const fromWorker = await pool.values(statement);
    for (let run = 0; run < 5 && !pool.runsInline(statement); run++) await pool.values(statement);
    expect(pool.runsInline(statement)).toBe(true);
    const inline = await pool.values(statement);
    expect(fromWorker).toEqual(objects.map((row) => [row.id, row.uuid]));
    expect(inline).toEqual(fromWorker);
    // The same statement as objects again: the mode is the call's, not the kept statement's.
    expect(await pool.all(statement)).toEqual(objects);
  });

  it('keeps a slow statement in the workers', async () => {
    expect((await pool.all(SLOW))[0]?.n).toBe(3_000_000);
    expect(pool.runsInline(SLOW)).toBe(false);
  });

  it('never runs a live database statement inline unless it reads one row by a unique key', async () => {
    // A copy opened as a live database would be: its data may change between two runs.
    const file = join(tempDir(), 'live.sqlite3');
    copyFileSync((backend.db as SqlitePool).file, file);
    const live = await SqlitePool.open(file, { unchanging: false });
    try {
      await live.all(PAGE);
      await live.all(PAGE);
      expect(live.runsInline(PAGE)).toBe(false);
    } finally {
      await live.close();
    }
  });
});
