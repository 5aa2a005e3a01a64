/**
 * The order of a text search's results in one index: by relevance (bm25 over label, description and formula,
 * a label weighing more than a description), then newest first among equally relevant matches. A database of
 * a few hand-made nodes, so that newest-first alone would give another order than relevance does.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../src/search/index-build.js';
import { parseSearch } from '../src/search/request.js';
import { searchIndex } from '../src/search/run.js';
import { tempDir } from './helpers.js';

const DICT = 'data.core.dict.Dict.';

/** label, description, ctime of each node; ids from 1 in this order. */
const NODES: [string, string, string][] = [
  ['relax of silicon', 'the first relaxation', '2020-01-01 10:00:00'],
  [
    '',
    'a long story: the inputs were checked, and then a relax was run once more with a finer grid',
    '2024-01-01 10:00:00',
  ],
  ['bands of silicon', 'no relaxation here', '2025-01-01 10:00:00'],
  ['relax of silicon', 'the same again', '2021-01-01 10:00:00'],
];

function indexOf(nodes: [string, string, string][]): BetterSqlite3.Database {
  const dir = tempDir('quarry-rank-');
  const source = join(dir, 'db.sqlite3');
  const db = new BetterSqlite3(source);
  db.exec(`CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, uuid TEXT, node_type TEXT, process_type TEXT,
    label TEXT, description TEXT, ctime TEXT, attributes TEXT)`);
  const add = db.prepare('INSERT INTO db_dbnode VALUES (?, ?, ?, NULL, ?, ?, ?, ?)');
  nodes.forEach(([label, description, ctime], i) =>
    add.run(i + 1, `0000000${i + 1}-aaaa-4bbb-8ccc-dddddddddddd`, DICT, label, description, ctime, '{}'),
  );
  db.close();
  const out = join(dir, 'index.search');
  buildIndex(source, out);
  return new BetterSqlite3(out, { readonly: true });
}

describe('a text search in one index', () => {
  it('orders its matches by relevance, a label before a description, then newest first', () => {
    const db = indexOf(NODES);
    try {
      const found = searchIndex(
        db,
        parseSearch('q=relax', () => true),
        10,
      );
      expect(found.total).toBe(3);
      // The two labelled "relax" first (the newer of them first), the one that says it in a description last,
      // although it is newer than both.
      expect(found.rows.map((r) => r.id)).toEqual([4, 1, 2]);
      expect(found.rows[0]!.score).toBeLessThan(found.rows[2]!.score);
      // Without words: newest first.
      const all = searchIndex(
        db,
        parseSearch('type=dict', () => true),
        10,
      );
      expect(all.rows.map((r) => r.id)).toEqual([3, 2, 4, 1]);
    } finally {
      db.close();
    }
  });
});
