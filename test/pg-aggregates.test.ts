/**
 * Creation statistics on PostgreSQL count the nodes of each UTC day from the ctime index, day by day: the
 * same answer as grouping every node on its day, at the day's edges, across gaps of days, on an empty table
 * and per user. Needs PostgreSQL (.ci/run installs it); skips without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable } from '../src/bench/pg-schema.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { creationStatistics } from '../src/storage/aggregates.js';
import { PostgresDatabase } from '../src/storage/postgres/database.js';

/** [node_type, ctime as UTC text, user] */
const NODES: [string, string, number][] = [
  ['data.core.int.Int.', '2020-01-01 00:00:00', 1],
  ['data.core.int.Int.', '2020-01-01 23:59:59.999999', 2],
  ['data.core.int.Int.', '2020-01-02 00:00:00', 1],
  ['data.core.dict.Dict.', '2020-01-02 12:00:00', 1],
  // Nine days without nodes, then a day with many.
  ...Array.from({ length: 40 }, (_, i): [string, string, number] => [
    'process.calculation.calcjob.CalcJobNode.',
    `2020-01-12 ${String(Math.floor(i / 2)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
    1 + (i % 2),
  ]),
  ['data.core.int.Int.', '2021-06-30 23:59:59.999999', 2],
];

describe.skipIf(!withPostgres)('creation statistics on PostgreSQL', () => {
  let cluster: Cluster;
  let db: PostgresDatabase;
  let empty: PostgresDatabase;

  beforeAll(async () => {
    cluster = await startCluster();
    for (const name of ['stats', 'empty']) {
      cluster.sql('postgres', `CREATE DATABASE ${name}`);
      cluster.sql(name, `${createTable('db_dbnode')}; CREATE INDEX ix_ctime ON db_dbnode (ctime)`);
    }
    const values = NODES.map(
      ([type, ctime, user], i) =>
        `(${i + 1}, gen_random_uuid(), '${type}', '', '', '${ctime}+00', '${ctime}+00', '{}', ${user})`,
    );
    cluster.sql(
      'stats',
      'INSERT INTO db_dbnode (id, uuid, node_type, label, description, ctime, mtime, repository_metadata, user_id) ' +
        `VALUES ${values.join(', ')}`,
    );
    db = new PostgresDatabase({ url: cluster.url('stats'), poolSize: 1 });
    empty = new PostgresDatabase({ url: cluster.url('empty'), poolSize: 1 });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await empty?.close();
    cluster?.destroy();
  });

  it('counts each UTC day, at its edges and across gaps', async () => {
    const stats = await creationStatistics(db);
    expect(stats.ctime_by_day).toEqual({
      '2020-01-01': 2,
      '2020-01-02': 2,
      '2020-01-12': 40,
      '2021-06-30': 1,
    });
    expect(stats.total).toBe(NODES.length);
    expect(stats.types).toEqual({
      'data.core.dict.Dict.': 1,
      'data.core.int.Int.': 4,
      'process.calculation.calcjob.CalcJobNode.': 40,
    });
    // The same as grouping every node on its day, in the same order.
    const grouped = await db.all({
      sql: "SELECT CAST((ctime AT TIME ZONE 'UTC')::date AS text) AS d, count(*) AS n FROM db_dbnode GROUP BY 1 ORDER BY 1",
      params: [],
    });
    expect(Object.entries(stats.ctime_by_day)).toEqual(grouped.map((r) => [r.d, Number(r.n)]));
  });

  it("counts one user's nodes per day, and nothing on an empty table", async () => {
    expect((await creationStatistics(db, 2)).ctime_by_day).toEqual({
      '2020-01-01': 1,
      '2020-01-12': 20,
      '2021-06-30': 1,
    });
    expect(await creationStatistics(empty)).toEqual({ total: 0, types: {}, ctime_by_day: {} });
  });
});
