/**
 * A large export of an archive writes its database in a thread of its own (compiled code), copying the tables
 * from the archive's copy by SQL: the serving thread's timers keep firing meanwhile, and the database holds
 * exactly the rows the row-by-row writer (that of live profiles) writes from the same plan. A client gone stops
 * the thread, and so does the time limit, with a message.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { smallArchive, tempDir } from './helpers.js';
import { runNode } from './support/run-node.js';

const dist = join(import.meta.dirname, '../dist/export/database.js');

let archive: string;

beforeAll(async () => {
  archive = await smallArchive(6000, 47);
}, 60_000);

interface Outcome {
  ticks: number;
  ms: number;
  nodes: number;
  links: number;
  integrity: string;
  differences: string[];
  stoppedMs: number;
  late: string;
}

describe("an archive's large export", () => {
  it.skipIf(!existsSync(dist))(
    'is copied in a thread of its own, row for row what the row writer writes, and stops when told',
    { timeout: 120_000 },
    async () => {
      const cacheDir = tempDir('quarry-export-worker-');
      const program = `
      const [archive, dir] = process.argv.slice(1);
      const { openArchive } = await import(${JSON.stringify(join(dist, '../../storage/index.js'))});
      const { planWhole } = await import(${JSON.stringify(join(dist, '../plan.js'))});
      const { writeDatabase } = await import(${JSON.stringify(dist)});
      const { default: Sqlite } = await import('better-sqlite3');
      const backend = await openArchive(archive, { cacheDir: dir });
      const budget = () => ({ deadline: Date.now() + 60_000, heavy: true, inThread: false });
      const plan = await planWhole(backend.db, backend.repository, { maxNodes: 1e6, maxBytes: 1e12 }, budget());
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 2);
      const started = performance.now();
      await writeDatabase(backend.db, plan, dir + '/copied.sqlite3', budget(), () => false, backend.db.file);
      const ms = performance.now() - started;
      clearInterval(timer);
      await writeDatabase(backend.db, plan, dir + '/rows.sqlite3', budget(), () => false);
      const copied = new Sqlite(dir + '/copied.sqlite3', { readonly: true });
      const rows = new Sqlite(dir + '/rows.sqlite3', { readonly: true });
      const tables = copied.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      const differences = [];
      for (const t of tables) {
        const a = JSON.stringify(copied.prepare('SELECT * FROM ' + t + ' ORDER BY id').raw().all());
        const b = JSON.stringify(rows.prepare('SELECT * FROM ' + t + ' ORDER BY id').raw().all());
        if (a !== b) differences.push(t);
      }
      const count = (t) => copied.prepare('SELECT count(*) FROM ' + t).pluck().get();
      const outcome = { ticks, ms, nodes: count('db_dbnode'), links: count('db_dblink'),
        integrity: copied.pragma('integrity_check', { simple: true }), differences };
      copied.close();
      rows.close();
      const stopAt = performance.now();
      await writeDatabase(backend.db, plan, dir + '/stopped.sqlite3', budget(), () => true, backend.db.file);
      outcome.stoppedMs = performance.now() - stopAt;
      const late = { deadline: Date.now() - 1, heavy: true, inThread: false };
      outcome.late = await writeDatabase(backend.db, plan, dir + '/late.sqlite3', late, () => false, backend.db.file)
        .then(() => 'written', (error) => error.message);
      await backend.close();
      process.stdout.write(JSON.stringify(outcome));
    `;
      const outcome = await runNode<Outcome>(program, [archive, cacheDir]);
      expect(outcome.nodes).toBe(6000);
      expect(outcome.links).toBeGreaterThan(6000);
      expect(outcome.integrity).toBe('ok');
      expect(outcome.differences).toEqual([]);
      // Copied in this thread, no timer could fire until the copy was over.
      expect(outcome.ticks).toBeGreaterThan(2);
      expect(outcome.ticks).toBeGreaterThanOrEqual(Math.min(5, Math.floor(outcome.ms / 20)));
      expect(outcome.stoppedMs).toBeLessThan(outcome.ms * 5 + 1000);
      expect(outcome.late).toMatch(/past its time limit/);
    },
  );
});
