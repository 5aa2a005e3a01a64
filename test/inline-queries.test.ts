import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { buildApp } from '../src/server/app.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

/** A statement that runs for seconds: counting to 20 million in a recursive CTE. */
const SLOW = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c',
  params: [20_000_000],
};
const PAGE = {
  sql: 'SELECT id, uuid FROM db_dbnode ORDER BY ctime DESC, id ASC LIMIT 20 OFFSET 40',
  params: [],
};

/** The rows, and how long the call held this thread before it returned its promise. */
async function timed(run: () => Promise<unknown[]>): Promise<{ rows: unknown[]; heldMs: number }> {
  const started = performance.now();
  const answer = run();
  const heldMs = performance.now() - started;
  return { rows: await answer, heldMs };
}

describe('statements in the serving thread', () => {
  let backend: StorageBackend;
  let file: string;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 4), { cacheDir: tempDir() });
    file = (backend.db as SqlitePool).file;
  });
  afterAll(async () => backend.close());

  it('has the SQLite extension that stops them, built by npm install', () => {
    const built = join(import.meta.dirname, '..', 'build', 'statement-deadline.so');
    expect(existsSync(built), `${built} is missing: npm install builds it with cc (see README.md)`).toBe(
      true,
    );
  });

  it('stops a statement whose time passed before it began (the thread taken off its core after the arm)', () => {
    // SQLite forgets an interrupt that comes while none of the connection's statements runs: the watcher
    // interrupts again at every look until the statement is disarmed.
    const db = new BetterSqlite3(file, { readonly: true });
    try {
      db.loadExtension(join(import.meta.dirname, '..', 'build', 'statement-deadline.so'));
      db.prepare('SELECT quarry_arm(1)').get();
      const armed = performance.now();
      while (performance.now() - armed < 30) {
        // The time passes before the statement starts.
      }
      const started = performance.now();
      let stopped: unknown;
      try {
        db.prepare(SLOW.sql).get(...SLOW.params);
      } catch (error) {
        stopped = error;
      }
      expect((stopped as { code?: string } | undefined)?.code).toBe('SQLITE_INTERRUPT');
      expect(performance.now() - started).toBeLessThan(150);
      for (let tries = 0; ; tries++) {
        try {
          db.prepare('SELECT quarry_disarm()').get();
          break;
        } catch (error) {
          // The disarming statement may meet the watcher's next interrupt.
          if (tries > 100) throw error;
        }
      }
      // Disarmed: the next statement runs to its end.
      expect(db.prepare(SLOW.sql).get(1000)).toEqual({ n: 1000 });
    } finally {
      db.close();
    }
  });

  it('answers a posted query alone in the serving process, with no query process started', async () => {
    const own = await openArchive(await smallArchive(300, 4), { cacheDir: tempDir() });
    const app = await buildApp({ backends: [own] });
    try {
      const answer = await app.inject({
        method: 'POST',
        url: '/api/v4/querybuilder/',
        payload: {
          path: [{ entity_type: '', orm_base: 'node', tag: 'n' }],
          project: { n: ['id'] },
          limit: 5,
        },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().data.n).toHaveLength(5);
      expect((own.db as SqlitePool).processIds).toEqual([]);
    } finally {
      await app.close();
      await own.close();
    }
  });

  it('runs a statement of a shape never run in this thread first, with the rows a query process gives', async () => {
    const inThread = await SqlitePool.open(file, { unchanging: true });
    const inProcess = await SqlitePool.open(file, { unchanging: true, inlineBudgetMs: 0 });
    try {
      expect(inThread.runsInline(PAGE)).toBe(true);
      const rows = await inThread.all(PAGE);
      const arrays = await inThread.values(PAGE);
      // No query process was needed (they start at their first statement).
      expect(inThread.processIds).toEqual([]);
      expect(inProcess.runsInline(PAGE)).toBe(false);
      expect(rows).toHaveLength(20);
      expect(await inProcess.all(PAGE)).toEqual(rows);
      expect(await inProcess.values(PAGE)).toEqual(arrays);
      expect(arrays).toEqual(rows.map((row) => [row.id, row.uuid]));
      expect(inProcess.processIds).toHaveLength(1);
    } finally {
      await Promise.all([inThread.close(), inProcess.close()]);
    }
  });

  it('stops a statement past its time in this thread within milliseconds and runs it in a query process', async () => {
    const pool = await SqlitePool.open(file, { unchanging: true });
    try {
      expect(pool.runsInline(SLOW)).toBe(true);
      const { rows, heldMs } = await timed(() => pool.all(SLOW));
      expect(rows).toEqual([{ n: 20_000_000 }]);
      // Stopped at 5 ms (the watcher looks then), give or take a busy machine's scheduling; the whole run takes seconds.
      expect(heldMs).toBeLessThan(150);
      expect(pool.processIds).toHaveLength(1);
      // Its shape stays in processes: with other values too, it is not tried in this thread again.
      expect(pool.runsInline({ ...SLOW, params: [10] })).toBe(false);
      const again = await timed(() => pool.all({ ...SLOW, params: [10] }));
      expect(again.rows).toEqual([{ n: 10 }]);
      // Once its runs in a process have brought its estimate well within the budget (each weighs a third, so
      // some twenty after a run of seconds), it is tried in this thread again.
      let runs = 1;
      for (; runs < 40 && !pool.runsInline(SLOW); runs++) await pool.all({ ...SLOW, params: [10 + runs] });
      expect(pool.runsInline(SLOW)).toBe(true);
      expect(runs).toBeGreaterThan(10);
      // A statement's own error is its answer, not a reason to run it elsewhere.
      await expect(pool.all({ sql: 'SELECT no_such_column FROM db_dbnode', params: [] })).rejects.toThrow(
        /no such column/,
      );
    } finally {
      await pool.close();
    }
  });

  it('moves a quick statement of an archive to this thread for good, unstopped', async () => {
    const pool = await SqlitePool.open(file, { unchanging: true, inlineBudgetMs: 0 });
    try {
      const statement = { ...PAGE, sql: PAGE.sql.replace('OFFSET 40', 'OFFSET 80') };
      expect(pool.runsInline(statement)).toBe(false);
      const first = await pool.all(statement);
      // Each process run measures again; a busy machine may stretch one run of a 0.05 ms query past 1 ms.
      for (let run = 0; run < 5 && !pool.runsInline(statement); run++) await pool.all(statement);
      expect(pool.runsInline(statement)).toBe(true);
      expect(await pool.all(statement)).toEqual(first);
      // Other values are another statement: measured on their own.
      expect(pool.runsInline({ ...statement, sql: PAGE.sql.replace('OFFSET 40', 'OFFSET 60') })).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it('stops a live database statement the same way: its data may change between two runs', async () => {
    const copy = join(tempDir(), 'live.sqlite3');
    copyFileSync(file, copy);
    const live = await SqlitePool.open(copy, { unchanging: false });
    try {
      expect(await live.all(PAGE)).toHaveLength(20);
      expect(live.processIds).toEqual([]);
      const { rows, heldMs } = await timed(() => live.all(SLOW));
      expect(rows).toEqual([{ n: 20_000_000 }]);
      expect(heldMs).toBeLessThan(150);
    } finally {
      await live.close();
    }
  });
});
