/**
 * An archive's costly statements are run once and their rows kept: asked again (or while the first run is
 * under way) they are answered without a query process; quick statements and live databases are not kept.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/storage/index.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

/** Counting to a million in a recursive CTE: far past the 20 ms from which rows are kept. */
const COSTLY = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c',
  params: [1_000_000],
};
const QUICK = { sql: 'SELECT id FROM db_dbnode ORDER BY id LIMIT 3', params: [] };

describe('kept rows of costly statements', () => {
  let backend: StorageBackend;
  let pool: SqlitePool;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 6), { cacheDir: tempDir() });
    pool = backend.db as SqlitePool;
    await pool.ready();
  }, 60_000);
  afterAll(async () => backend?.close());

  it('runs a costly statement once for many callers at once, and answers it again without a process', async () => {
    const before = pool.kept.entries;
    const answers = await Promise.all(Array.from({ length: 6 }, () => pool.all(COSTLY)));
    expect(answers.every((rows) => rows[0]?.n === 1_000_000)).toBe(true);
    // One run shared by all six: the same rows.
    expect(new Set(answers).size).toBe(1);
    expect(pool.kept.entries).toBe(before + 1);
    // Asked again, it does not reach the admission: nothing runs, nothing waits.
    const again = pool.all(COSTLY);
    expect(pool.state).toMatchObject({ running: 0, waiting: 0, heavyWaiting: 0 });
    expect(await again).toEqual(answers[0]);
    // Other values are another statement; the arrays form of the same statement is kept apart.
    expect(await pool.values(COSTLY)).toEqual([[1_000_000]]);
    expect((await pool.all({ ...COSTLY, params: [999_999] }))[0]?.n).toBe(999_999);
  }, 60_000);

  it('keeps no quick statement', async () => {
    const before = pool.kept.entries;
    await pool.all(QUICK);
    await pool.all(QUICK);
    expect(pool.kept.entries).toBe(before);
  });

  it('keeps nothing of a live database, whose rows may change', async () => {
    const file = join(tempDir(), 'live.sqlite3');
    copyFileSync(pool.file, file);
    const live = await SqlitePool.open(file, { unchanging: false });
    try {
      await live.all(COSTLY);
      await live.all(COSTLY);
      expect(live.kept.entries).toBe(0);
    } finally {
      await live.close();
    }
  }, 60_000);
});
