/**
 * Posted queries' records written as JSON by SQLite (src/query/json-records.ts): the answer has the same values,
 * keys in the same order, as the records read, formatted and written in JavaScript; a value SQLite cannot write
 * that way (a date of another form, a float) is left to JavaScript, never written otherwise.
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_GRID_QUERY } from '../src/bench/mix.js';
import { prepareQuery, StoredDatetime } from '../src/query/index.js';
import { valueSql } from '../src/query/json-records.js';
import { postQueryBuilder } from '../src/rest/querybuilder.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { HTTP_DATE_EXTENSION, loadHttpDate } from '../src/storage/sqlite-extensions.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import { toJson } from '../src/util/exact-json.js';
import { richFile } from './conformance/corpus.js';
import { sqliteDosFolder } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const node = (tag: string, entity_type = '') => ({ entity_type, orm_base: 'node', tag });

/** Bodies of every projection kind SQLite writes: columns of each type, attribute paths, joins, aggregates. */
const BODIES: Record<string, Record<string, unknown>> = {
  "the explorer's grid": EXPLORER_GRID_QUERY,
  'whole nodes': { path: [node('n')], project: { n: ['**'] }, order_by: { n: ['id'] } },
  'processes by attribute': {
    path: [node('p', 'process.')],
    project: { p: ['id', 'process_type', 'attributes.process_state', 'attributes.exit_status', 'mtime'] },
    order_by: { p: ['id'] },
  },
  'a join, both tags answered': {
    path: [
      node('c', 'process.calculation.calcjob.CalcJobNode.'),
      { ...node('o', 'data.core.dict.Dict.'), joining_keyword: 'with_incoming', joining_value: 'c' },
    ],
    project: { c: ['id', 'uuid'], o: ['id', 'uuid', 'attributes', 'label'] },
    order_by: { o: ['id'] },
  },
  users: { path: [{ entity_type: 'user', orm_base: 'user', tag: 'u' }], project: { u: ['**'] } },
  computers: { path: [{ entity_type: 'computer', orm_base: 'computer', tag: 'c' }], project: { c: ['**'] } },
  groups: { path: [{ entity_type: 'group.core', orm_base: 'group', tag: 'g' }], project: { g: ['**'] } },
  // full_type first among the keys (with no comma before it), and from a process type alone (data nodes have
  // none: then no full_type at all).
  'full_type first': { path: [node('n')], project: { n: ['id', 'node_type'] }, order_by: { n: ['id'] } },
  'full_type from the process type': {
    path: [node('n')],
    project: { n: ['process_type', 'id'] },
    order_by: { n: ['id'] },
  },
  'a count': { path: [node('n', 'data.')], project: { n: [{ id: { func: 'count' } }] } },
  'nothing matches': { path: [node('n')], filters: { n: { id: { '<': 0 } } }, project: { n: ['id'] } },
};

/** Bodies the records of which JavaScript writes: a float cast, a whole entity. */
const LEFT_TO_JAVASCRIPT: Record<string, Record<string, unknown>> = {
  'a float cast': {
    path: [node('n', 'data.core.int.')],
    project: { n: [{ 'attributes.value': { cast: 'f' } }] },
  },
  'a whole entity': { path: [node('n', 'data.core.int.')], project: { n: ['*'] } },
};

const WHOLE = 100_000;

/** The answer's data as JSON text, through SQLite's records (a limit within the rows' bound) or not. */
async function answered(backend: StorageBackend, body: Record<string, unknown>, records: boolean) {
  // A body without a limit is counted first and answered from its rows; with one, from SQLite's records.
  const { limit: _limit, ...unbounded } = body;
  const result = await postQueryBuilder(
    backend,
    records ? { ...body, limit: WHOLE } : unbounded,
    undefined,
    WHOLE,
  );
  return {
    written: Buffer.isBuffer(result.data),
    text: Buffer.isBuffer(result.data) ? result.data.toString('utf8') : toJson(result.data),
    total: result.total,
  };
}

/** The text with every number and key order as JSON.parse reads them. */
const normal = (text: string) => JSON.stringify(JSON.parse(text));

const storages: [string, () => Promise<StorageBackend>][] = [
  ['archive', () => openArchive(richFile('rich.aiida'), { cacheDir: tempDir('quarry-records-') })],
  [
    'core.sqlite_dos',
    async () =>
      openSqliteDos(
        await sqliteDosFolder(
          richFile('rich.aiida'),
          richFile('rich-container-packed.tar.gz'),
          tempDir('quarry-records-'),
        ),
        { name: 'rich' },
      ),
  ],
];

describe.each(storages)('records written by SQLite, %s', (_name, open) => {
  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await open();
  }, 120_000);
  afterAll(async () => backend?.close());

  it.each(Object.entries(BODIES))('%s: the same records as written in JavaScript', async (_query, body) => {
    const [sqlite, javascript] = [await answered(backend, body, true), await answered(backend, body, false)];
    expect(sqlite.written).toBe(true);
    expect(javascript.written).toBe(false);
    expect(sqlite.total).toBe(javascript.total);
    expect(normal(sqlite.text)).toBe(normal(javascript.text));
  });

  it('writes the same bytes where no JSON column is answered', async () => {
    const [sqlite, javascript] = [
      await answered(backend, EXPLORER_GRID_QUERY, true),
      await answered(backend, EXPLORER_GRID_QUERY, false),
    ];
    expect(sqlite.total).toBeGreaterThan(1000);
    expect(sqlite.text).toBe(javascript.text);
  });

  it('writes the same records in a query process (sent as bytes)', async () => {
    // A pool that runs nothing in this thread: the records' statement runs in a query process.
    const pool = await SqlitePool.open((backend.db as SqlitePool).file, { inlineBudgetMs: 0, size: 1 });
    try {
      const there = { ...backend, db: pool } as StorageBackend;
      for (const body of [EXPLORER_GRID_QUERY, BODIES['a join, both tags answered']!]) {
        const [sqlite, here] = [await answered(there, body, true), await answered(backend, body, true)];
        expect(sqlite.written).toBe(true);
        expect(sqlite.text).toBe(here.text);
      }
    } finally {
      await pool.close();
    }
  });

  it.each(Object.entries(LEFT_TO_JAVASCRIPT))('%s: written in JavaScript', async (_query, body) => {
    const result = await answered(backend, body, true);
    expect(result.written).toBe(false);
    expect(result.total).toBeGreaterThan(0);
  });
});

describe('values written by SQLite', () => {
  const db = new BetterSqlite3(':memory:');
  afterAll(() => db.close());

  let loaded = false;
  beforeAll(() => {
    loaded = loadHttpDate(db);
  });

  it('has the SQLite extension that writes dates, built by npm install', () => {
    expect(
      HTTP_DATE_EXTENSION,
      'build/http-date.so is missing: npm install builds it with cc (see README.md)',
    ).toBeDefined();
    expect(loaded).toBe(true);
  });

  const write = (type: Parameters<typeof valueSql>[0], value: unknown) =>
    (
      db
        .prepare(`WITH "v"("x") AS (SELECT ?) SELECT ${valueSql(type, '"x"')} FROM "v"`)
        .raw(true)
        .get(value) as unknown[]
    )[0];

  it('writes dates as the reference does, or leaves them to JavaScript', () => {
    const texts = [
      '2023-11-02 06:26:33.039875',
      '2023-11-02T06:26:33',
      '2024-02-29 23:59:59.5+00:00',
      '1999-12-31 00:00:00Z',
      '2000-01-01 12:00:00.000001-00:00',
      '2001-07-04 08:09:10+0000',
      '2001-07-04 08:09:10+00',
      '1000-01-01 00:00:00',
      '2023-11-02 06:26:33+02:00',
      '2023-02-29 10:00:00',
      '2023-11-31 10:00:00',
      '2023-11-02 24:00:00',
      '2023-11-02 06:60:00',
      '2023-11-02 06:26:33.',
      '0999-11-02 06:26:33',
      '2023-13-02 06:26:33',
      '2023-11-02',
      'not a date',
    ];
    const written = texts.map((t) => write('datetime', t));
    texts.forEach((text, i) => {
      const sql = written[i];
      if (sql !== null)
        expect(JSON.parse(sql as string), text).toBe(StoredDatetime.fromText(text).toHttpDate());
    });
    // The forms datetime.ts cuts its HTTP date from are all written; the others are left to JavaScript.
    expect(written.slice(0, 8).every((w) => typeof w === 'string')).toBe(true);
    expect(written.slice(8).every((w) => w === null)).toBe(true);
    expect(write('datetime', null)).toBe('null');
  });

  it('writes texts, numbers and JSON texts with their values', () => {
    for (const text of ['plain', 'quote " and \\ back', 'tab\tnew\nline\u0001', 'é ü 漢字 😀', ''])
      expect(JSON.parse(write('text', text) as string)).toBe(text);
    // Bound as SQLite integers, as the columns hold them (a JavaScript number is bound as a float).
    expect(write('int', 42n)).toBe('42');
    expect(write('int', -(2n ** 53n) + 1n)).toBe(String(-(2 ** 53) + 1));
    // Past 2^53 with all its digits, as the reference writes it; a float so that it reads back exactly.
    expect(write('int', 2n ** 60n)).toBe(String(2n ** 60n));
    expect(JSON.parse(write('int', 0.1 + 0.2) as string)).toBe(0.1 + 0.2);
    expect(write('int', null)).toBe('null');
    expect(write('bool', 1n)).toBe('true');
    expect(write('bool', 0n)).toBe('false');
    expect(write('json', '{"a": 1.0, "b": [1, "x"], "c": 12345678901234567890}')).toBe(
      '{"a":1.0,"b":[1,"x"],"c":12345678901234567890}',
    );
    // Python writes NaN into JSON texts; JavaScript's reading decides what becomes of it.
    expect(write('json', '{"a": NaN}')).toBeNull();
    expect(write('json', null)).toBe('null');
  });

  it('has no statement for keys JavaScript would put in another order', () => {
    // An object's integer-like keys come first in JavaScript, whatever their place: a tag `7` among others.
    const compiled = prepareQuery(
      { path: [node('7'), { ...node('b'), with_incoming: '7' }], project: { 7: ['id'], b: ['id'] } },
      'sqlite',
    );
    expect(compiled.records?.(['b'], true)).toBeDefined();
    expect(compiled.records?.(['b', '7'], true)).toBeUndefined();
  });
});
