import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { machineTicks, queryProcessCpuMs, treeCpuMs } from '../src/bench/process-table.js';
import { openArchive } from '../src/storage/index.js';
import type { SqlitePool } from '../src/storage/sqlite-pool.js';
import { smallArchive, tempDir } from './helpers.js';

describe('machineTicks', () => {
  it("reads the machine's CPU time and the share stolen by the host, growing as time passes", async () => {
    const before = machineTicks();
    expect(before.total).toBeGreaterThan(0);
    expect(before.steal).toBeGreaterThanOrEqual(0);
    expect(before.steal).toBeLessThanOrEqual(before.total);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = machineTicks();
    expect(after.total).toBeGreaterThan(before.total);
    expect(after.steal).toBeGreaterThanOrEqual(before.steal);
  });
});

describe('queryProcessCpuMs', () => {
  it("counts the CPU of this process's SQLite query processes, not that of its other children", async () => {
    const backend = await openArchive(await smallArchive(50, 2), { cacheDir: tempDir() });
    // Another child burning CPU until it is killed: part of the tree, not a query process.
    const other = spawn(process.execPath, ['-e', 'for (;;);']);
    const exited = new Promise((resolve) => other.once('exit', resolve));
    try {
      const before = { query: queryProcessCpuMs(process.pid), tree: treeCpuMs(process.pid) };
      // Counting to 3 million in a recursive CTE: well over a clock tick of a query process's CPU.
      await (backend.db as SqlitePool).all({
        sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c',
        params: [3_000_000],
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const query = queryProcessCpuMs(process.pid) - before.query;
      expect(query).toBeGreaterThan(50);
      // The other child's CPU is in the tree but not among the query processes'.
      expect(treeCpuMs(process.pid) - before.tree).toBeGreaterThan(query + 100);
    } finally {
      other.kill();
      await exited;
      await backend.close();
    }
  });
});
