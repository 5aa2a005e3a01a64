/**
 * A search without words reads its results newest first or through the index that finds its matches, as how
 * many of the source's nodes match says: both ways give the same results in the same order, and its counts,
 * read from the index's tally, are those of its matches counted node by node. On the project's rich archive
 * and a generated one.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../src/search/index-build.js';
import { parseSearch } from '../src/search/request.js';
import { countIndex, indexRows } from '../src/search/run.js';
import { openArchive } from '../src/storage/index.js';
import type { SqlitePool } from '../src/storage/sqlite-pool.js';
import { richFile } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';

const SEARCHES = [
  'type=structure',
  'type=calcjob&state=finished',
  'state=failed',
  'state=excepted',
  'nelements=2',
  'elements=O',
  'elements=Si,O&type=structure',
  'type=workflow&state=finished',
  'type=dict',
];

const indexes: BetterSqlite3.Database[] = [];

beforeAll(async () => {
  for (const archive of [richFile('rich.aiida'), await smallArchive(500, 13)]) {
    const dir = tempDir('quarry-plans-');
    const backend = await openArchive(archive, { cacheDir: dir });
    const copy = (backend.db as SqlitePool).file;
    await backend.close();
    buildIndex(copy, join(dir, 'index.search'));
    indexes.push(new BetterSqlite3(join(dir, 'index.search'), { readonly: true }));
  }
}, 120_000);

afterAll(() => {
  for (const db of indexes) db.close();
});

/** The matches' count by type and by element, node by node (the index's rows, none of its tallies). */
function countedByNode(db: BetterSqlite3.Database, query: string) {
  const request = parseSearch(query, () => true);
  const ids = new Set(indexRows(db, request, 1_000_000).map((row) => row.id));
  const count = (sql: string) => {
    const by: Record<string, number> = {};
    for (const [id, key] of db.prepare(sql).raw().all() as [number, string][])
      if (ids.has(id)) by[key] = (by[key] ?? 0) + 1;
    return by;
  };
  return {
    types: count('SELECT n.id, t.node_type FROM nodes AS n JOIN types AS t ON t.type = n.type'),
    elements: count('SELECT id, element FROM elements'),
  };
}

describe('a search without words in one index', () => {
  it('gives the same results read newest first as through the index of its matches', () => {
    let matched = 0;
    for (const db of indexes) {
      for (const query of SEARCHES) {
        const request = parseSearch(query, () => true);
        for (const window of [1, 20, 500]) {
          const throughIndex = indexRows(db, request, window, Infinity, { matches: 1, nodes: 1e9 });
          const newestFirst = indexRows(db, request, window, Infinity, { matches: 1e9, nodes: 1 });
          expect(newestFirst, `${query}, ${window}`).toEqual(throughIndex);
          matched += throughIndex.length;
        }
      }
    }
    expect(matched).toBeGreaterThan(500);
  });

  it('counts its matches from the tally as they are counted node by node', () => {
    for (const db of indexes) {
      for (const query of SEARCHES) {
        const request = parseSearch(query, () => true);
        const counts = countIndex(db, request);
        const byNode = countedByNode(db, query);
        expect(Object.fromEntries(counts.types), query).toEqual(byNode.types);
        expect(Object.fromEntries(counts.elements), query).toEqual(byNode.elements);
        expect(counts.total, query).toBe(Object.values(byNode.types).reduce((a, b) => a + b, 0));
      }
    }
  });
});
