import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { creationStatistics, typeCounts } from '../src/storage/aggregates.js';
import type { Database } from '../src/storage/types.js';
import { ARCHIVE_TABLES } from '../src/domain/sqlite-zip-schema.js';
import { tempDir } from './helpers.js';

/** A nodes table with the awkward cases: NULL and '' process types, and a data node with a process type. */
function fixture(): Database {
  const file = join(tempDir(), 'db.sqlite3');
  const db = new BetterSqlite3(file);
  for (const sql of ARCHIVE_TABLES) db.exec(sql);
  db.exec('CREATE INDEX ix_pt ON db_dbnode (process_type)');
  db.exec("INSERT INTO db_dbuser VALUES (1, 'a@x', 'A', 'A', ''), (2, 'b@x', 'B', 'B', '')");
  const insert = db.prepare(
    "INSERT INTO db_dbnode VALUES (?, ?, ?, ?, '', '', ?, ?, '{}', '{}', '{}', NULL, ?)",
  );
  const rows: [string, string | null, string, number][] = [
    ['data.core.int.Int.', null, '2020-01-01 10:00:00.000000', 1],
    ['data.core.int.Int.', null, '2020-01-01 23:59:59.999999', 2],
    ['data.core.int.Int.', '', '2020-01-02 00:00:00.000000', 1],
    ['data.core.odd.Odd.', 'plugin.thing', '2020-01-02 00:00:01.000000', 1],
    [
      'process.calculation.calcjob.CalcJobNode.',
      'aiida.calculations:core.arithmetic.add',
      '2020-01-03 01:00:00.000000',
      1,
    ],
    [
      'process.calculation.calcjob.CalcJobNode.',
      'aiida.calculations:core.arithmetic.add',
      '2020-01-03 02:00:00.000000',
      2,
    ],
    ['process.calculation.calcjob.CalcJobNode.', '', '2020-01-03 03:00:00.000000', 1],
    ['process.calculation.calcjob.CalcJobNode.', null, '2020-01-03 04:00:00.000000', 1],
    ['process.workflow.workchain.WorkChainNode.', 'aiida.workflows:x', '2020-01-04 04:00:00.000000', 2],
  ];
  rows.forEach(([t, p, c, u], i) => insert.run(i + 1, `uuid-${i}`, t, p, c, c, u));
  db.close();
  const ro = new BetterSqlite3(file, { readonly: true });
  return {
    dialect: 'sqlite',
    all: async (s) => ro.prepare(s.sql).all(...s.params) as never,
    values: async (s) =>
      ro
        .prepare(s.sql)
        .raw()
        .all(...s.params) as never,
    close: async () => {
      ro.close();
    },
  };
}

describe('grouped counts', () => {
  it('counts nodes per type, with NULL and empty process types together', async () => {
    const db = fixture();
    expect(await typeCounts(db)).toEqual([
      { nodeType: 'data.core.int.Int.', processType: '', count: 3 },
      { nodeType: 'data.core.odd.Odd.', processType: 'plugin.thing', count: 1 },
      { nodeType: 'process.calculation.calcjob.CalcJobNode.', processType: '', count: 2 },
      {
        nodeType: 'process.calculation.calcjob.CalcJobNode.',
        processType: 'aiida.calculations:core.arithmetic.add',
        count: 2,
      },
      { nodeType: 'process.workflow.workchain.WorkChainNode.', processType: 'aiida.workflows:x', count: 1 },
    ]);
    expect(await typeCounts(db, 2)).toEqual([
      { nodeType: 'data.core.int.Int.', processType: '', count: 1 },
      {
        nodeType: 'process.calculation.calcjob.CalcJobNode.',
        processType: 'aiida.calculations:core.arithmetic.add',
        count: 1,
      },
      { nodeType: 'process.workflow.workchain.WorkChainNode.', processType: 'aiida.workflows:x', count: 1 },
    ]);
  });

  it('counts creations per UTC day', async () => {
    const stats = await creationStatistics(fixture());
    expect(stats.total).toBe(9);
    expect(stats.ctime_by_day).toEqual({
      '2020-01-01': 2,
      '2020-01-02': 2,
      '2020-01-03': 4,
      '2020-01-04': 1,
    });
    expect(stats.types['process.calculation.calcjob.CalcJobNode.']).toBe(4);
  });
});
