/**
 * A side table built by the worker threads of the compiled code (two workers, many ranges of pks each, parts
 * joined) is the same table, row for row, as the one built in the serving thread from the same archive, with
 * the same counts per value; and its count of a filter from those counts is the count of its matches.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/storage/index.js';
import { completeSymmetry, openSideTable } from '../src/optimade/side-table.js';
import { compileFilter } from '../src/optimade/filter-sql.js';
import { parseFilter } from '../src/optimade/filter-ast.js';
import { smallArchive, tempDir } from './helpers.js';
import { FIXTURES_DIR } from './conformance/corpus.js';
import { sqliteDosFolder } from './support/profile-fixtures.js';
import { openSqliteDos } from '../src/storage/profiles.js';

const DATA = join(FIXTURES_DIR, 'data');
const RICH = join(DATA, 'rich.aiida');

const dist = join(import.meta.dirname, '../dist/optimade/side-table.js');

/** Runs `program` (an ES module) with the built code, with `args`; its standard output. */
function runBuilt(program: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', program, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}
let archive: string;

beforeAll(async () => {
  archive = await smallArchive(900, 23);
}, 60_000);

function tableFile(cacheDir: string): string {
  const dir = join(cacheDir, 'optimade');
  const names = readdirSync(dir).filter((n) => n.endsWith('.sqlite3'));
  expect(names).toHaveLength(1);
  // No part or temporary file is left beside it.
  expect(readdirSync(dir)).toEqual(names);
  return join(dir, names[0]!);
}

function dump(file: string) {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return {
      structures: db.prepare('SELECT * FROM structures ORDER BY sid').raw(true).all(),
      counts: db.prepare('SELECT * FROM side_counts ORDER BY property, value').raw(true).all(),
      meta: db.prepare('SELECT * FROM side_meta ORDER BY key').raw(true).all(),
      indexes: db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").pluck().all(),
    };
  } finally {
    db.close();
  }
}

describe('the side table build', () => {
  it.skipIf(!existsSync(dist))(
    'gives the same table in worker threads (compiled code) as in the serving thread',
    { timeout: 120_000 },
    async () => {
      const inWorkers = tempDir('quarry-side-workers-');
      const oneRange = tempDir('quarry-side-one-range-');
      const program = `
      const { openArchive } = await import(${JSON.stringify(join(dist, '../../storage/index.js'))});
      const { openSideTable, completeSymmetry } = await import(${JSON.stringify(dist)});
      const backend = await openArchive(process.argv[1], { cacheDir: process.argv[2] });
      const options = { cacheDir: process.argv[2], workers: 2, rangePks: 7 };
      const table = await openSideTable(backend, backend.identity, options);
      let progress = 0;
      const complete = await completeSymmetry(backend, table, (done) => (progress = done), options);
      process.stdout.write(JSON.stringify({ count: table.count, symmetry: [table.symmetry, complete.symmetry], progress }));
      await table.close();
      await complete.close();
      // The default ranges: the whole of a small archive is one, and the second worker has none.
      (await openSideTable(backend, backend.identity, { cacheDir: process.argv[3], workers: 2 })).close();
      await backend.close();
    `;
      const built = JSON.parse(await runBuilt(program, [archive, inWorkers, oneRange])) as {
        count: number;
        symmetry: string[];
        progress: number;
      };
      // Served first without its symmetry, then complete; the pass looked at every structure.
      expect(built.symmetry).toEqual(['pending', 'complete']);
      expect(built.progress).toBe(built.count);

      const inThread = tempDir('quarry-side-thread-');
      const backend = await openArchive(archive, { cacheDir: inThread });
      try {
        const table = await openSideTable(backend, backend.identity!, { cacheDir: inThread });
        expect(table.count).toBe(built.count);
        expect(built.count).toBeGreaterThan(20);
        expect(table.symmetry).toBe('pending');
        await table.close();
        // A restart finds the pass not done, and does it.
        const again = await openSideTable(backend, backend.identity!, { cacheDir: inThread });
        expect(again.symmetry).toBe('pending');
        const pending = dump(again.file);
        expect(pending.structures.every((row) => (row as unknown[])[20] === null)).toBe(true);
        expect(pending.indexes).not.toContain('structures_space_group_it_number');
        (await completeSymmetry(backend, again, () => undefined, { cacheDir: inThread })).close();
        await again.close();
        // And then finds it done.
        const done = await openSideTable(backend, backend.identity!, { cacheDir: inThread });
        expect(done.symmetry).toBe('complete');
        await done.close();
      } finally {
        await backend.close();
      }
      const [a, b] = [dump(tableFile(inWorkers)), dump(tableFile(inThread))];
      expect(a.structures.length).toBe(built.count);
      expect(a.structures.some((row) => typeof (row as unknown[])[20] === 'number')).toBe(true);
      expect(a.indexes).toContain('structures_space_group_it_number');
      expect(a).toEqual(b);
      expect(a.indexes.length).toBeGreaterThan(10);
      // The first pass alone (its symmetry not found): the same rows but for the symmetry columns.
      const first = dump(tableFile(oneRange));
      expect(first.structures.map((row) => (row as unknown[]).slice(0, 20))).toEqual(
        b.structures.map((row) => (row as unknown[]).slice(0, 20)),
      );
    },
  );

  it.skipIf(!existsSync(dist))(
    'gives the same table in worker threads from a live core.sqlite_dos profile, never writing it',
    { timeout: 120_000 },
    async () => {
      const root = tempDir('quarry-side-live-');
      const folder = await sqliteDosFolder(RICH, join(DATA, 'rich-container-packed.tar.gz'), root);
      const database = join(folder, 'database.sqlite');
      const before = statSync(database).mtimeMs;
      const inWorkers = join(root, 'workers');
      const program = `
      const { openSqliteDos } = await import(${JSON.stringify(join(dist, '../../storage/profiles.js'))});
      const { openSideTable } = await import(${JSON.stringify(dist)});
      const backend = await openSqliteDos(process.argv[1], { name: 'live', cacheDir: process.argv[2] });
      const table = await openSideTable(backend, 'v1', { cacheDir: process.argv[2], workers: 2, rangePks: 50 });
      process.stdout.write(JSON.stringify({ count: table.count }));
      await table.close();
      await backend.close();
    `;
      const built = JSON.parse(await runBuilt(program, [folder, inWorkers])) as { count: number };
      const inThread = join(root, 'thread');
      const backend = await openSqliteDos(folder, { name: 'live', cacheDir: inThread });
      try {
        const table = await openSideTable(backend, 'v1', { cacheDir: inThread });
        expect(table.count).toBe(built.count);
        await table.close();
      } finally {
        await backend.close();
      }
      // Every StructureData of rich and its ten CifData.
      expect(built.count).toBe(83);
      expect(dump(tableFile(inWorkers))).toEqual(dump(tableFile(inThread)));
      expect(statSync(database).mtimeMs).toBe(before);
    },
  );

  it('counts a filter on one counted column from the counts per value, as many as it matches', async () => {
    const dir = tempDir('quarry-side-counts-');
    const backend = await openArchive(archive, { cacheDir: dir });
    try {
      const first = await openSideTable(backend, backend.identity!, { cacheDir: dir });
      const table = await completeSymmetry(backend, first, () => undefined, { cacheDir: dir });
      await first.close();
      try {
        for (const filter of [
          'nsites<10',
          'nsites>=3 AND nsites<7',
          '4 > nelements',
          'nperiodic_dimensions=3',
          'nsites>1000',
          // The space group is null for some structures: those are in no count, as in no comparison.
          'space_group_it_number=1',
          'space_group_it_number>=195',
          'space_group_it_number!=225',
        ]) {
          const compiled = compileFilter(parseFilter(filter));
          expect(compiled.counted, filter).toBeDefined();
          const [fromCounts] = (await table.db.values(compiled.counted!))[0]!;
          const [counted] = (
            await table.db.values({
              sql: `SELECT count(*) FROM structures AS s WHERE ${compiled.where}`,
              params: compiled.params,
            })
          )[0]!;
          expect(Number(fromCounts), filter).toBe(Number(counted));
        }
        expect(
          Number((await table.db.values({ sql: 'SELECT count(*) FROM side_counts', params: [] }))[0]![0]),
        ).toBeGreaterThan(3);
        // Anything else is counted from the structures.
        for (const filter of ['nsites<10 OR nelements=2', 'nsites<10 AND nelements=2', 'NOT nsites<10'])
          expect(compileFilter(parseFilter(filter)).counted, filter).toBeUndefined();
      } finally {
        await table.close();
      }
    } finally {
      await backend.close();
    }
  });
});
