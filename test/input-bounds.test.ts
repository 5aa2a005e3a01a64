/**
 * Inputs that used to answer 500 (or crash the process), each answered with a 400 that says what to fix, or
 * with the correct answer where the request is valid: numbers past what JavaScript or the database holds,
 * nesting past what the stack bears, patterns past SQLite's bound, odd attribute keys, and database error
 * text that must not reach the client. Run on a generated archive and on a PostgreSQL profile (the rich
 * data; skipped without PostgreSQL or the conformance dump, unless QUARRY_REQUIRE_POSTGRES is set).
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { openPostgresUrl } from '../src/storage/profiles.js';
import { richFile } from './conformance/corpus.js';
import { smallArchive } from './helpers.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const dump = richFile('rich-psql.sql.gz');
const loose = richFile('rich-container-loose.tar.gz');
const postgresCase = withPostgres && existsSync(dump) && existsSync(loose);
const temp = () => tempDir('quarry-bounds-');

let cluster: Cluster | undefined;
afterAll(() => cluster?.destroy());

const BACKENDS: { label: string; skip: boolean; open: () => Promise<StorageBackend> }[] = [
  {
    label: 'archive',
    skip: false,
    open: async () => openArchive(await smallArchive(300, 5), { cacheDir: temp() }),
  },
  {
    label: 'PostgreSQL',
    skip: !postgresCase,
    open: async () => {
      cluster = await startCluster();
      cluster.restore('rich', dump);
      // A key that ends in a backslash, and one holding a quote: legal AiiDA keys, found by their JSON paths.
      cluster.sql(
        'rich',
        `UPDATE db_dbnode SET extras = extras || '{"odd\\\\": 7, "qu\\"ote": 8}' WHERE id = (SELECT min(id) FROM db_dbnode)`,
      );
      return openPostgresUrl(cluster.url('rich'), await unpackContainer(loose, temp()), { name: 'rich' });
    },
  },
];

const QB = '/api/v4/querybuilder/';
const node = (tag: string) => ({ entity_type: '', orm_base: 'node', tag });
const nestedFilter = (levels: number) => {
  let f: unknown = { id: { '>': 0 } };
  for (let i = 0; i < levels; i++) f = { [i % 2 ? 'and' : 'or']: [f, { id: { '<': 1e9 } }] };
  return f;
};
const nestedList = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);

describe.each(BACKENDS)(
  'input bounds on $label',
  ({ label, skip, open }) => {
    let backend: StorageBackend;
    let app: FastifyInstance;
    const get = (url: string) => app.inject({ method: 'GET', url: `/api/v4${url}` });
    const post = (body: unknown) =>
      app.inject({
        method: 'POST',
        url: QB,
        payload: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const refused = async (
      answer: Promise<{ statusCode: number; json: () => { message?: unknown } }>,
      message: RegExp,
    ) => {
      const r = await answer;
      expect({ status: r.statusCode, message: r.json().message }).toEqual({
        status: 400,
        message: expect.stringMatching(message),
      });
    };
    const uuid = async () => (await get('/nodes/?limit=1&orderby=id')).json().data.nodes[0].uuid as string;

    beforeAll(async () => {
      if (skip) return;
      backend = await open();
      app = await buildApp({ backends: [backend] });
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await backend?.close();
    });

    it.skipIf(skip)(
      'refuses limit and offset of 2^53 or more, 1e99 and fractions, in the query string and QueryBuilder',
      async () => {
        await refused(
          get('/nodes/?offset=9007199254740992'),
          /offset must be at most 9007199254740991 \(2\^53 - 1\)/,
        );
        await refused(get('/nodes/?limit=9007199254740992'), /limit must be at most 9007199254740991/);
        await refused(get('/nodes/?offset=1e99'), /offset must be at most .*got 1e\+99/);
        await refused(get('/nodes/?limit=1e99'), /limit must be at most/);
        await refused(get('/nodes/page/1/?perpage=1e99'), /perpage must be at most/);
        await refused(get('/nodes/?limit=1.5'), /limit must be a whole number, got 1.5/);
        await refused(get('/nodes/?offset=1.5'), /offset must be a whole number, got 1.5/);
        await refused(get('/users/?offset=1e999'), /offset must be a whole number, got Infinity/);
        await refused(
          post({ path: [node('a')], limit: 2 ** 53 }),
          /limit: must be a whole number from 0 to 9007199254740991/,
        );
        await refused(
          post({ path: [node('a')], offset: 1e99 }),
          /offset: must be a whole number .*got 1e\+99/,
        );
        await refused(post({ path: [node('a')], limit: 1.5 }), /limit: must be a whole number/);
        // The largest count is served.
        const last = await get('/nodes/?offset=9007199254740991&limit=1');
        expect([last.statusCode, last.json().data.nodes]).toEqual([200, []]);
        const qb = await post({ path: [node('a')], offset: 2 ** 53 - 1, limit: 2 ** 53 - 1 });
        expect(qb.statusCode).toBe(200);
      },
    );

    it.skipIf(skip)('refuses in_limit and out_limit of 1e99 on the tree', async () => {
      const id = await uuid();
      await refused(get(`/nodes/${id}/links/tree/?in_limit=1e99`), /in_limit must be at most/);
      await refused(get(`/nodes/${id}/links/tree/?out_limit=1e99`), /out_limit must be at most/);
      await refused(get(`/nodes/${id}/links/tree/?in_limit=0.5`), /in_limit must be a whole number/);
      expect((await get(`/nodes/${id}/links/tree/?in_limit=9007199254740991`)).statusCode).toBe(200);
    });

    it.skipIf(skip)(
      'refuses and/or nested past 32 levels (1000 in the body), and runs the deepest and widest allowed',
      async () => {
        await refused(
          post({ path: [node('a')], filters: { a: nestedFilter(1000) } }),
          /nests more than 128 levels/,
        );
        await refused(
          post({ path: [node('a')], filters: { a: nestedFilter(33) } }),
          /nest more than 32 levels deep; flatten them/,
        );
        const deepest = await post({
          path: [node('a')],
          filters: { a: nestedFilter(32) },
          project: { a: ['id'] },
          limit: 1,
        });
        expect(deepest.statusCode).toBe(200);
        // SQLite refuses an expression deeper than 1000 levels, and a chain of 5000 ORs is one.
        const wide = { or: Array.from({ length: 5000 }, (_, i) => ({ id: i + 1 })) };
        const answer = await post({
          path: [node('a')],
          filters: { a: wide },
          project: { a: ['id'] },
          limit: 3,
          order_by: [{ a: ['id'] }],
        });
        expect(answer.statusCode).toBe(200);
        expect(answer.json().data.a.length).toBe(3);
      },
    );

    it.skipIf(skip)(
      'refuses a filter value nested 100,000 levels deep (the stack overflowed), and one past 32 levels',
      async () => {
        const filter = (value: string) =>
          `{"path":[{"entity_type":"","orm_base":"node","tag":"a"}],"filters":{"a":{"attributes":{"==":${value}}}}}`;
        await refused(post(filter(nestedList(100_000))), /nests more than 128 levels of lists and objects/);
        await refused(post(filter(nestedList(33))), /the value nests more than 32 levels/);
        expect((await post(filter(nestedList(32)))).statusCode).toBe(200);
        await refused(
          post({
            path: [node('a')],
            filters: { a: { 'extras.x': { contains: JSON.parse(nestedList(40)) } } },
          }),
          /nests more than 32/,
        );
      },
    );

    it.skipIf(skip)(
      'refuses like/ilike patterns of more than 10,000 characters, and runs one at the bound',
      async () => {
        const long = 'a%'.repeat(25_000);
        await refused(
          get(`/nodes/?label=like="${long}"`),
          /"like" pattern has 50000 characters; at most 10000/,
        );
        await refused(
          post({ path: [node('a')], filters: { a: { description: { ilike: long } } } }),
          /"ilike" pattern has 50000/,
        );
        await refused(
          post({ path: [node('a')], filters: { a: { 'attributes.x': { like: long } } } }),
          /at most 10000/,
        );
        // Three bytes a character: 30,000 bytes, under SQLite's 50,000.
        const atBound = await post({
          path: [node('a')],
          filters: { a: { label: { like: '%' + '€'.repeat(9_998) + '%' } } },
        });
        expect(atBound.statusCode).toBe(200);
        expect(
          (await get(`/nodes/?label=like="${encodeURIComponent('%'.repeat(10_000))}"&limit=1`)).statusCode,
        ).toBe(200);
      },
    );

    it.skipIf(skip)(
      'finds attribute keys ending in a backslash or holding a quote, and refuses NUL in keys and values',
      async () => {
        for (const [key, value] of [
          ['extras.odd\\', 7],
          ['extras.qu"ote', 8],
          ['attributes.foo\\', undefined],
        ] as const) {
          const found = await post({
            path: [node('a')],
            filters: { a: { [key]: { '>': 0 } } },
            project: { a: [key] },
          });
          expect(found.statusCode).toBe(200);
          // Only the PostgreSQL data was given these keys (test/query.test.ts reads them from SQLite).
          const expected = label === 'PostgreSQL' && value !== undefined ? [{ [key]: value }] : undefined;
          expect(found.json().data.a).toEqual(expected);
          const ordered = await post({
            path: [node('a')],
            order_by: [{ a: [{ [key]: { order: 'desc' } }] }],
            limit: 1,
          });
          expect(ordered.statusCode).toBe(200);
        }
        const attributes = await get('/nodes/?attributes=true&attributes_filter="foo\\"&limit=1');
        expect(attributes.statusCode).toBe(200);
        expect(attributes.json().data.nodes[0].attributes).toEqual({ 'foo\\': null });
        await refused(
          post({ path: [node('a')], filters: { a: { 'attributes.fo\u0000o': 1 } } }),
          /keys cannot hold NUL characters/,
        );
        await refused(post({ path: [node('a')], project: { a: ['extras.\u0000'] } }), /keys cannot hold NUL/);
        await refused(
          post({ path: [node('a')], order_by: [{ a: ['attributes.a\u0000'] }] }),
          /keys cannot hold NUL/,
        );
        await refused(get('/nodes/?attributes=true&attributes_filter="fo%00o"'), /keys cannot hold NUL/);
        await refused(get('/nodes/?label="a%00b"'), /values cannot hold NUL characters/);
        await refused(
          post({ path: [node('a')], filters: { a: { 'extras.x': { '==': { 'k\u0000': 1 } } } } }),
          /keys cannot hold NUL/,
        );
      },
    );

    it.skipIf(skip)(
      'decides comparisons a typed column cannot hold instead of sending them to the database',
      async () => {
        const ids = async (url: string) => {
          const r = await get(url);
          expect(r.statusCode).toBe(200);
          return (r.json().data.nodes as { id: number }[]).map((n) => n.id);
        };
        expect(await ids('/nodes/?id=1e99')).toEqual([]);
        expect(await ids('/nodes/?id=1e999')).toEqual([]);
        expect(await ids('/nodes/?id=1.5')).toEqual([]);
        expect(await ids('/nodes/?uuid=5')).toEqual([]);
        expect(await ids('/nodes/?id>1.5&orderby=id&limit=5')).toEqual(
          await ids('/nodes/?id>=2&orderby=id&limit=5'),
        );
        expect(await ids('/nodes/?id<=3.7&orderby=id&limit=5')).toEqual(
          await ids('/nodes/?id<=3&orderby=id&limit=5'),
        );
        expect(await ids('/nodes/?id<3000000000&orderby=id&limit=5')).toEqual(
          await ids('/nodes/?orderby=id&limit=5'),
        );
        expect(await ids('/nodes/?id>-1e99&orderby=id&limit=5')).toEqual(
          await ids('/nodes/?orderby=id&limit=5'),
        );
        expect(await ids('/nodes/?dbcomputer_id<1e99&orderby=id&limit=5')).toEqual(
          await ids('/nodes/?dbcomputer_id>=0&orderby=id&limit=5'),
        );
        const first = (await ids('/nodes/?orderby=id&limit=1'))[0] as number;
        expect(await ids(`/nodes/?id=like="${first}"`)).toEqual([first]);
        expect((await get('/users/?id=true')).json().data.users).toEqual([]);
        await refused(get('/nodes/?ctime>5'), /ctime: compare with a date-time such as/);
        await refused(
          get('/nodes/?id>"abc"'),
          /id: ">" compares a whole-number column with numbers, not "abc"/,
        );
        const empty = await post({ path: [node('a')], filters: { a: { 'extras.x': { in: [] } } } });
        expect([empty.statusCode, empty.json().data]).toEqual([200, {}]);
      },
    );

    it.skipIf(skip)('refuses what no database can run, saying why, the same on every backend', async () => {
      await refused(
        post({ path: [node('a')], project: { a: [{ mtime: { cast: 'i' } }] } }),
        /"mtime" holds a date-time, which has no "i" form/,
      );
      await refused(
        post({ path: [node('a')], order_by: [{ a: [{ uuid: { cast: 'f' } }] }] }),
        /"uuid" holds a UUID/,
      );
      await refused(
        post({ path: [node('a')], project: { a: [{ label: { func: 'sum' } }] } }),
        /sum adds numbers; "label" is a text column/,
      );
      await refused(
        post({ path: [node('a')], project: { a: ['id', { id: { func: 'count' } }] } }),
        /"id" beside it needs a "func" too/,
      );
      await refused(
        post({
          path: [node('a')],
          project: { a: ['node_type'] },
          order_by: [{ a: ['label'] }],
          distinct: true,
        }),
        /with "distinct", order by projected columns only; project "label" of "a" too/,
      );
      const distinct = await post({
        path: [node('a')],
        project: { a: ['node_type'] },
        order_by: [{ a: ['node_type'] }],
        distinct: true,
      });
      expect(distinct.statusCode).toBe(200);
      // An aggregate is one row: the order is dropped (PostgreSQL refused an ORDER BY beside count()).
      const counted = await post({
        path: [node('a')],
        project: { a: [{ id: { func: 'count' } }] },
        order_by: [{ a: ['id'] }],
      });
      const all = Number((await get('/nodes/?limit=1')).headers['x-total-count']);
      expect(counted.json().data.a).toEqual([{ id: all }]);
      const lists = Object.fromEntries(
        ['id', 'user_id', 'dbcomputer_id', 'label'].map((c, i) => [
          c,
          { in: Array.from({ length: 10_000 }, (_, j) => i + j) },
        ]),
      );
      await refused(
        post({ path: [node('a')], filters: { a: lists } }),
        /needs 40\d{3} bound values .* at most 32766/,
      );
    });

    it.skipIf(skip || label !== 'PostgreSQL')(
      'answers a value the database refuses with a message of its own',
      async () => {
        const r = await post({ path: [node('a')], project: { a: [{ label: { cast: 'i' } }] }, limit: 3 });
        expect(r.statusCode).toBe(400);
        const message = r.json().message as string;
        expect(message).toMatch(/does not fit the type it meets in the database: check the filter values/);
        expect(message).not.toMatch(/invalid input syntax|bigint|integer:/);
      },
    );
  },
  180_000,
);
