/**
 * PostgreSQL under the request's deadline: a statement past it is cancelled on the server (not only answered),
 * heavy queries never take every session, and waiting is bounded. Needs PostgreSQL (.ci/run installs it);
 * skips without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { PostgresDatabase } from '../src/storage/postgres/database.js';
import { QueryTimeoutError, ServerBusyError } from '../src/storage/types.js';

describe.skipIf(!withPostgres)('PostgreSQL queries under a request deadline', () => {
  let cluster: Cluster;
  let db: PostgresDatabase;
  const sleeping = () =>
    Number(
      cluster.sql(
        'postgres',
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%'",
      ),
    );

  beforeAll(async () => {
    cluster = await startCluster();
    db = new PostgresDatabase({ url: cluster.url('postgres'), poolSize: 2, timeoutMs: 20_000 });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    cluster?.destroy();
  });

  it('cancels a statement on the server when the request deadline passes', async () => {
    const started = Date.now();
    await expect(
      db.all({ sql: 'SELECT pg_sleep(10)', params: [] }, { deadline: Date.now() + 500 }),
    ).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(Date.now() - started).toBeLessThan(3_000);
    // Without the cancel, the statement would sleep on for 10 s (its session's own limit is 20 s).
    const end = Date.now() + 3_000;
    while (sleeping() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(sleeping()).toBe(0);
    expect((await db.all({ sql: 'SELECT 1 AS one', params: [] }))[0]!.one).toBe(1);
  });

  it('keeps a session for ordinary queries while heavy ones run, and lets heavy ones wait that fit their deadline', async () => {
    const deadline = Date.now() + 10_000;
    const heavy = Array.from({ length: 6 }, (_, i) =>
      db
        .all({ sql: `SELECT pg_sleep(1), ${i} AS i`, params: [] }, { deadline, heavy: true })
        .then(() => 'done')
        .catch((e: unknown) => (e instanceof ServerBusyError ? `busy ${e.retryAfter}` : String(e))),
    );
    await new Promise((r) => setTimeout(r, 100));
    // Two sessions: one heavy query runs, the others wait (six seconds of work fit in ten), one session stays
    // free for ordinary queries.
    const started = Date.now();
    expect((await db.all({ sql: 'SELECT 2 AS two', params: [] }))[0]!.two).toBe(2);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await Promise.all(heavy)).toEqual(Array(6).fill('done'));
  }, 20_000);

  it('refuses at once a heavy query whose expected wait would pass its deadline', async () => {
    const sql = { sql: 'SELECT pg_sleep(0.5), 1 AS known', params: [] };
    // Its cost is learnt from a run.
    await db.all(sql, { deadline: Date.now() + 5_000, heavy: true });
    const deadline = Date.now() + 1_200;
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        db
          .all(sql, { deadline, heavy: true })
          .then(() => 'done')
          .catch((e: unknown) => (e instanceof ServerBusyError ? `busy ${e.retryAfter}` : e)),
      ),
    );
    // 0.5 s running and 0.5 s waiting end within 1.2 s; a third could start before the deadline and waits (to
    // be stopped at it, on a machine this busy maybe the second too); a fourth could not even start, and is
    // told at once when to come back.
    expect(outcomes[0]).toBe('done');
    for (const waited of outcomes.slice(1, 3))
      expect(waited === 'done' || waited instanceof QueryTimeoutError).toBe(true);
    expect(outcomes[3]).toMatch(/^busy [12]$/);
  }, 20_000);
});
