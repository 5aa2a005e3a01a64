import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import type { SqlStatement } from '../src/storage/types.js';
import { tempDir } from './helpers.js';

/**
 * Rows cross from a query process as JSON text that SQLite writes (src/storage/query-child.ts). Whatever a
 * statement reads must arrive as the same values, in the same order, as better-sqlite3 reads them in this
 * thread; rows that JSON cannot hold arrive as values.
 */
const VALUES: unknown[] = [
  0,
  -7,
  2n ** 53n + 1n,
  -(2n ** 62n),
  0.1 + 0.2,
  1.0,
  2.5e-7,
  1e300,
  5e-324,
  -1.7976931348623157e308,
  '',
  'plain',
  'quotes " and \\ and \u0000 nul, \n\t controls',
  'ünïcödé, 中文, emoji 🧪, lone half \ud800',
  '{"a": [1, 2.50, {"b": null}]}',
  null,
];

describe('rows from a query process', () => {
  let file: string;
  let pool: SqlitePool;
  let direct: BetterSqlite3.Database;
  beforeAll(async () => {
    file = join(tempDir(), 'values.sqlite3');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, v, j TEXT, b BLOB)');
    const insert = db.prepare('INSERT INTO db_dbnode (id, v, j, b) VALUES (?, ?, ?, ?)');
    VALUES.forEach((v, i) => insert.run(i + 1, v, '{"x": {"y": [1, 2.5]}, "z": "t"}', null));
    db.close();
    // A live database (not unchanging): every statement goes to a query process, none runs in this thread.
    pool = await SqlitePool.open(file, { size: 1 });
    direct = new BetterSqlite3(file, { readonly: true });
  });
  afterAll(async () => {
    direct.close();
    await pool.close();
  });

  const both = async (statement: SqlStatement) => {
    const read = direct.prepare(statement.sql);
    return {
      values: [await pool.values(statement), read.raw(true).all(...statement.params)],
      objects: [await pool.all(statement), read.raw(false).all(...statement.params)],
    };
  };

  it('gives every kind of value as this thread reads it, as arrays and as objects', async () => {
    const { values, objects } = await both({
      sql: 'SELECT id, v, typeof(v) AS t FROM db_dbnode ORDER BY id',
      params: [],
    });
    expect(values[0]).toEqual(values[1]);
    expect(objects[0]).toEqual(objects[1]);
    expect(values[0]).toHaveLength(VALUES.length);
    // Spot checks of what equality could hide: exact doubles, text with escapes, integers past 2^53.
    const byId = new Map((values[0] as unknown[][]).map((row) => [row[0], row[1]]));
    expect(byId.get(5)).toBe(0.30000000000000004);
    expect(byId.get(9)).toBe(5e-324);
    expect(byId.get(13)).toBe(VALUES[12]);
    expect(byId.get(3)).toBe(2 ** 53);
  });

  it('gives JSON made inside the statement as the text the statement returns', async () => {
    const { values } = await both({
      sql: `SELECT json(j) AS a, j -> '$.x' AS b, json_extract(j, '$.x') AS c, j ->> '$.z' AS d, json_array(id, v) AS e FROM db_dbnode WHERE id < 4 ORDER BY id DESC`,
      params: [],
    });
    expect(values[0]).toEqual(values[1]);
    expect((values[0] as unknown[][])[0]![1]).toBe('{"y":[1,2.5]}');
  });

  it('keeps the order of the statement, with and without a limit, and answers no rows with none', async () => {
    for (const sql of [
      'SELECT id FROM db_dbnode ORDER BY typeof(v), id DESC',
      'SELECT id FROM db_dbnode ORDER BY id DESC LIMIT ? OFFSET 2',
      'SELECT id FROM db_dbnode WHERE id > ? ORDER BY id',
    ]) {
      const { values } = await both({ sql, params: sql.includes('?') ? [1000] : [] });
      expect(values[0]).toEqual(values[1]);
    }
    expect(await pool.values({ sql: 'SELECT id FROM db_dbnode WHERE id < 0', params: [] })).toEqual([]);
  });

  it('sends rows JSON cannot hold as values: bytes, and columns of the same name', async () => {
    const bytes = await pool.values({
      sql: "SELECT id, x'00ff10' AS b FROM db_dbnode WHERE id = 1",
      params: [],
    });
    expect(Buffer.from(bytes[0]![1] as Uint8Array)).toEqual(Buffer.from([0, 255, 16]));
    const same = { sql: 'SELECT id AS n, v AS n FROM db_dbnode WHERE id = 2', params: [] };
    expect(await pool.values(same)).toEqual(direct.prepare(same.sql).raw(true).all());
    expect(await pool.all(same)).toEqual(direct.prepare(same.sql).all());
  });

  it('answers a statement SQLite refuses with its error, as before', async () => {
    await expect(pool.values({ sql: 'SELECT missing_column FROM db_dbnode', params: [] })).rejects.toThrow(
      /no such column: missing_column/,
    );
  });
});
