/**
 * The page of one node type by -ctime read from the archive copy's table of the types in creation order
 * (src/storage/archive/type-order.ts): the same rows, page by page, as the same page read from the nodes table,
 * on a generated archive whose creation times tie (the id breaks ties, as in the reference).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileQuery, parseQueryDict } from '../src/query/index.js';
import { buildApp } from '../src/server/app.js';
import { TYPE_ORDER_TABLE } from '../src/storage/archive/type-order.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { smallArchive } from './helpers.js';
import { databaseOf, tempDir, zipOf } from './storage-fixtures.js';

/** A generated archive whose even nodes share four creation times: ties within a type, across pages. */
async function archiveWithTies(): Promise<string> {
  const file = join(tempDir(), 'db.sqlite3');
  writeFileSync(file, await databaseOf(await smallArchive(600, 11)));
  const db = new BetterSqlite3(file);
  db.exec("UPDATE db_dbnode SET ctime = '2024-03-0' || (id % 4 + 1) || ' 10:00:00.000000' WHERE id % 2 = 0");
  db.close();
  return zipOf({
    'metadata.json': JSON.stringify({ export_version: 'main_0001', aiida_version: '2.6.3' }),
    'db.sqlite3': readFileSync(file),
    'repo/': '',
  });
}

describe('a page of one node type by -ctime', () => {
  let backend: StorageBackend;
  let withTable: Awaited<ReturnType<typeof buildApp>>;
  let without: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    backend = await openArchive(await archiveWithTies(), { cacheDir: tempDir() });
    withTable = await buildApp({ backends: [backend], keptAnswers: false });
    // The same storage as before the table: the page read from the nodes table.
    without = await buildApp({ backends: [{ ...backend, nodeTypeOrder: undefined }], keptAnswers: false });
  });
  afterAll(async () => {
    await withTable?.close();
    await without?.close();
    await backend?.close();
  });

  it("is read from the copy's table", () => {
    expect(backend.nodeTypeOrder).toBe(TYPE_ORDER_TABLE);
    const dict = {
      path: [{ entity_type: '', orm_base: 'node', tag: 'nodes' }],
      filters: { nodes: { node_type: { '==': 'data.core.int.Int.' } } },
      project: { nodes: ['id', 'ctime'] },
      order_by: [{ nodes: [{ ctime: { order: 'desc' } }, { id: { order: 'asc' } }] }],
      limit: 20,
      offset: 40,
    };
    const q = parseQueryDict(dict);
    const hinted = compileQuery(q, 'sqlite', { nodeTypeOrder: TYPE_ORDER_TABLE }).select;
    expect(hinted.sql).toContain(`"${TYPE_ORDER_TABLE}"`);
    expect(hinted.sql).toContain('LIMIT 20 OFFSET 40');
    // A short window runs where it is asked for; a deep one (its offset read first) goes to a query process.
    expect(hinted.pointLookup).toBe(true);
    const deep = parseQueryDict({ ...dict, offset: 100_000 });
    expect(compileQuery(deep, 'sqlite', { nodeTypeOrder: TYPE_ORDER_TABLE }).select.pointLookup).toBe(false);
    expect(compileQuery(q, 'sqlite').select.sql).not.toContain(TYPE_ORDER_TABLE);
    // Any other shape (another order, another filter) is written as without the table.
    for (const other of [
      { ...dict, order_by: [{ nodes: [{ ctime: { order: 'asc' } }, { id: { order: 'asc' } }] }] },
      { ...dict, filters: { nodes: { node_type: { like: 'data.%' } } } },
      { ...dict, filters: { nodes: { node_type: { '==': 'data.core.int.Int.' }, label: { '==': 'x' } } } },
    ]) {
      const sql = compileQuery(parseQueryDict(other), 'sqlite', { nodeTypeOrder: TYPE_ORDER_TABLE }).select
        .sql;
      expect(sql).not.toContain(TYPE_ORDER_TABLE);
    }
  });

  it('gives the rows the nodes table gives, on every page of every type, ties in creation time included', async () => {
    const types = await backend.db.all({
      sql: 'SELECT node_type, count(*) AS n, count(DISTINCT ctime) AS times FROM db_dbnode GROUP BY node_type',
      params: [],
    });
    expect(types.some((t) => Number(t.times) < Number(t.n))).toBe(true);
    let pages = 0;
    for (const { node_type: type, n } of types) {
      const last = Math.max(1, Math.ceil(Number(n) / 7));
      for (let page = 1; page <= last + 1; page++) {
        const url = `/api/v4/nodes/page/${page}/?perpage=7&orderby=-ctime&node_type="${String(type)}"`;
        const [a, b] = await Promise.all([
          withTable.inject({ method: 'GET', url }),
          without.inject({ method: 'GET', url }),
        ]);
        expect(a.statusCode, url).toBe(b.statusCode);
        expect(a.headers['x-total-count'], url).toBe(b.headers['x-total-count']);
        expect(a.json(), url).toEqual(b.json());
        if (a.statusCode === 200) pages++;
      }
    }
    expect(pages).toBeGreaterThan(80);
  });
});
