/**
 * Query processes shared by many SQLite sources: a fixed number whatever the number of sources, each source's
 * statements answered from its own database, a statement past its time limit stopped (its process replaced)
 * without harm to the other sources, a closed source's database let go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { SharedQueryProcesses } from '../src/storage/shared-query-processes.js';
import { QueryTimeoutError } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';
const shared = new SharedQueryProcesses({ size: 1, keep: 2 });
const backends: StorageBackend[] = [];

beforeAll(async () => {
  const cacheDir = tempDir('quarry-shared-');
  for (const seed of [41, 42, 43]) {
    const file = await smallArchive(50 + seed, seed);
    backends.push(await openArchive(file, { cacheDir, sharedProcesses: shared, queryTimeoutMs: 3_000 }));
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(backends.map((b) => b.close()));
  await shared.close();
});

/**
 * A count that takes 100-400 ms (counting to a million beside it): past the few ms a statement may run in
 * the serving thread, so that it runs on the shared processes.
 */
const count = {
  sql:
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) ' +
    'SELECT (SELECT count(*) FROM db_dbnode WHERE id > ?) AS n, count(*) AS counted FROM c',
  params: [0],
};
const slow = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000000) SELECT count(*) FROM c',
  params: [],
};

describe('shared query processes', () => {
  it('answer every source from its own database on one process', async () => {
    for (let round = 0; round < 2; round++) {
      const counts = await Promise.all(backends.map((b) => b.db.all(count)));
      // Each archive has its own number of nodes: no answer came from another source's database.
      expect(counts.map((rows) => rows[0]!.n)).toEqual([91, 92, 93]);
    }
    expect(shared.processIds).toHaveLength(1);
  });

  it('stop a statement at its time limit and go on with a new process', { timeout: 20_000 }, async () => {
    const before = shared.processIds[0];
    await expect(backends[0]!.db.all(slow)).rejects.toBeInstanceOf(QueryTimeoutError);
    // A statement known to take longer than the serving thread may give it: run on a process.
    const rows = await backends[1]!.db.all({ ...count, params: [1] });
    expect(rows[0]!.n).toBe(91);
    expect(shared.processIds).toHaveLength(1);
    expect(shared.processIds[0]).not.toBe(before);
  });

  it('keep answering the other sources once one is closed', async () => {
    await backends[2]!.close();
    await expect(backends[2]!.db.all(count)).rejects.toThrow(/closed/);
    expect((await backends[0]!.db.all(count))[0]!.n).toBe(91);
  });
});
