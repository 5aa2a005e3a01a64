/**
 * A search index made at a source's first opening is built in a worker thread (compiled code): the serving
 * thread's timers keep firing while it is made, and the index holds every node of the copy; a copy that is no
 * AiiDA database is refused with a message, and leaves no file behind.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { smallArchive, tempDir } from './helpers.js';
import { runNode } from './support/run-node.js';

const dist = join(import.meta.dirname, '../dist/search/index-file.js');

let archive: string;

beforeAll(async () => {
  archive = await smallArchive(6000, 31);
}, 60_000);

describe('the search index build', () => {
  it.skipIf(!existsSync(dist))(
    'runs in a worker thread while the serving thread answers',
    { timeout: 120_000 },
    async () => {
      const cacheDir = tempDir('quarry-index-worker-');
      const program = `
      const { openArchive } = await import(${JSON.stringify(join(dist, '../../storage/index.js'))});
      const { makeIndex, readFigures } = await import(${JSON.stringify(dist)});
      const backend = await openArchive(process.argv[1], { cacheDir: process.argv[2] });
      const copy = backend.db.file;
      await backend.close();
      const target = process.argv[2] + '/made.search';
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 2);
      const started = performance.now();
      await makeIndex(copy, target, {});
      const ms = performance.now() - started;
      clearInterval(timer);
      let refused = '';
      // Asked at once, builds wait for each other in the one thread; a refused one leaves the others be.
      const [, , failed] = await Promise.allSettled([
        makeIndex(copy, process.argv[2] + '/second.search', {}),
        makeIndex(copy, process.argv[2] + '/third.search', {}),
        makeIndex(process.argv[3], process.argv[2] + '/bad.search', {}),
      ]);
      refused = failed.reason?.message ?? '';
      const more = [readFigures(process.argv[2] + '/second.search')?.nodes, readFigures(process.argv[2] + '/third.search')?.nodes];
      process.stdout.write(JSON.stringify({ ticks, ms, nodes: readFigures(target)?.nodes, more, refused }));
    `;
      const notDatabase = join(cacheDir, 'not-a-database.sqlite3');
      writeFileSync(notDatabase, 'not a database');
      const built = await runNode<{
        ticks: number;
        ms: number;
        nodes: number;
        more: number[];
        refused: string;
      }>(program, [archive, cacheDir, notDatabase]);
      expect(built.nodes).toBe(6000);
      expect(built.more).toEqual([6000, 6000]);
      // Built in this thread, no timer could fire until the build was over.
      expect(built.ticks).toBeGreaterThanOrEqual(Math.min(5, Math.floor(built.ms / 20)));
      expect(built.ticks).toBeGreaterThan(2);
      expect(built.refused).toMatch(/not a database|file is not a database/);
      expect(readdirSync(cacheDir).filter((f) => f.endsWith('.tmp') || f === 'bad.search')).toEqual([]);
    },
  );
});
