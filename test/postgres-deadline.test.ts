/**
 * PostgreSQL under the request's deadline: a statement past it is cancelled on the server (not only answered),
 * heavy queries never take every session, and waiting is bounded. Needs PostgreSQL (.ci/run installs it);
 * skips without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBin, startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { PostgresDatabase } from '../src/storage/postgres/database.js';
import { QueryTimeoutError, ServerBusyError } from '../src/storage/types.js';

const available = postgresBin() !== undefined || !!process.env.QUARRY_REQUIRE_POSTGRES;

describe.skipIf(!available)('PostgreSQL queries under a request deadline', () => {
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

  it('keeps a session for ordinary queries while heavy ones run, and bounds the heavy queue', async () => {
    const deadline = Date.now() + 10_000;
    const heavy = Array.from({ length: 6 }, (_, i) =>
      db
        .all({ sql: `SELECT pg_sleep(1), ${i} AS i`, params: [] }, { deadline, heavy: true })
        .then(() => 'done')
        .catch((e: unknown) => (e instanceof ServerBusyError ? `busy ${e.retryAfter}` : String(e))),
    );
    await new Promise((r) => setTimeout(r, 100));
    // Two sessions: one heavy query runs, four wait (four per session of the heavy lane), one is refused.
    const started = Date.now();
    expect((await db.all({ sql: 'SELECT 2 AS two', params: [] }))[0]!.two).toBe(2);
    expect(Date.now() - started).toBeLessThan(500);
    const outcomes = await Promise.all(heavy);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(5);
    expect(outcomes.filter((o) => o.startsWith('busy '))).toHaveLength(1);
  }, 20_000);
});
