/**
 * An archive's database is extracted once for every process sharing a cache folder: the others wait for the
 * copy, or are told to come back (503 with Retry-After) past their waiting time; a lock left by a process that
 * died is taken over; no half-written copy is ever used.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtractionBusyError, lockExtraction } from '../src/storage/archive/extract-lock.js';
import { smallArchive, tempDir } from './helpers.js';
import { runNode } from './support/run-node.js';
const dist = join(import.meta.dirname, '../dist/storage/index.js');
let archive: string;

beforeAll(async () => {
  archive = await smallArchive(300, 31);
}, 60_000);

describe('the extraction lock', () => {
  it('makes others wait, then tells them to come back; takes over the lock of a dead process', async () => {
    const dir = tempDir('quarry-lock-');
    const target = join(dir, 'copy.sqlite3');
    let complete = false;
    const held = await lockExtraction(target, async () => complete, 1_000);
    expect(held).toBeDefined();
    const waited = Date.now();
    const busy = await lockExtraction(target, async () => complete, 300).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ExtractionBusyError);
    expect(busy).toMatchObject({ status: 503, retryAfter: 5 });
    expect(Date.now() - waited).toBeGreaterThanOrEqual(250);
    // The copy completes while another waits: it is not extracted again.
    const waiting = lockExtraction(target, async () => complete, 5_000);
    setTimeout(() => {
      complete = true;
      void held!.release();
    }, 200);
    expect(await waiting).toBeUndefined();
    // A lock whose process is gone.
    complete = false;
    writeFileSync(`${target}.lock`, `${(await import('node:os')).hostname()} 999999999\n`);
    const taken = await lockExtraction(target, async () => complete, 1_000);
    expect(taken).toBeDefined();
    await taken!.release();
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it.skipIf(!existsSync(dist))(
    'extracts a cold archive once when two processes open it at once',
    { timeout: 60_000 },
    async () => {
      const cacheDir = tempDir('quarry-two-');
      mkdirSync(cacheDir, { recursive: true });
      const program = `
      const { openArchive } = await import(${JSON.stringify(dist)});
      const { extractionCount } = await import(${JSON.stringify(join(dist, '../archive/extract.js'))});
      const b = await openArchive(process.argv[1], { cacheDir: process.argv[2] });
      const rows = await b.db.values({ sql: 'SELECT count(*) FROM db_dbnode', params: [], pointLookup: true });
      await b.close();
      process.stdout.write(JSON.stringify({ extracted: extractionCount(), nodes: rows[0][0] }));
    `;
      const run = () => runNode<{ extracted: number; nodes: number }>(program, [archive, cacheDir]);
      const answers = await Promise.all([run(), run(), run()]);
      expect(answers.map((a) => a.extracted).reduce((a, b) => a + b, 0)).toBe(1);
      expect(new Set(answers.map((a) => a.nodes)).size).toBe(1);
      const left = readdirSync(join(cacheDir, 'archives'));
      expect(left.filter((n) => n.endsWith('.tmp') || n.endsWith('.lock'))).toEqual([]);
    },
  );
});
