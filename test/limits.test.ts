import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlitePool, QueryTimeoutError } from '../src/storage/sqlite-pool.js';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

/** Counting to 10^9 in a recursive CTE keeps SQLite busy for far longer than the limits below. */
const SLOW = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) AS n FROM c',
  params: [],
};

describe('query time limit', () => {
  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 2), {
      cacheDir: tempDir(),
      workers: 2,
      queryTimeoutMs: 300,
    });
    // Query processes start at their first query; the limit here is shorter than a cold start.
    await (backend.db as SqlitePool).ready();
  });
  afterAll(async () => backend.close());

  it('stops a query over the limit and keeps answering others meanwhile', async () => {
    const started = Date.now();
    const slow = backend.db.all(SLOW);
    const quick = await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] });
    expect(quick[0]!.n).toBe(300);
    await expect(slow).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(Date.now() - started).toBeLessThan(5000);
    // The pool has replaced the stopped worker and still answers.
    const again = await Promise.all(
      Array.from({ length: 20 }, () => backend.db.all({ sql: 'SELECT 1 AS one', params: [] })),
    );
    expect(again.every((r) => r[0]!.one === 1)).toBe(true);
  });

  it('answers a QueryBuilder query over the limit with 503 and a message, and stays responsive', async () => {
    const app = await buildApp({ backends: [backend] });
    const node = (tag: string) => ({ entity_type: '', orm_base: 'node', tag });
    // Every triple of nodes of one user: millions of rows to count.
    const heavy = {
      path: [
        { entity_type: 'user', orm_base: 'user', tag: 'u' },
        { ...node('a'), joining_keyword: 'with_user', joining_value: 'u' },
        { ...node('b'), joining_keyword: 'with_user', joining_value: 'u' },
        { ...node('c'), joining_keyword: 'with_user', joining_value: 'u' },
        { ...node('d'), joining_keyword: 'with_user', joining_value: 'u' },
      ],
      project: { d: ['id'] },
    };
    const slow = app.inject({ method: 'POST', url: '/api/v4/querybuilder/', payload: heavy });
    const quick = await app.inject({ method: 'GET', url: '/api/v4/users/' });
    expect(quick.statusCode).toBe(200);
    const answer = await slow;
    expect(answer.statusCode).toBe(503);
    expect(answer.json().message).toMatch(/time limit|limit of/);
    await app.close();
  });

  it('refuses queries larger than the configured bounds', async () => {
    const app = await buildApp({ backends: [backend], queryLimits: { maxVertices: 2, maxInList: 3 } });
    const node = (tag: string) => ({ entity_type: '', orm_base: 'node', tag });
    const three = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: {
        path: [
          node('a'),
          { ...node('b'), joining_keyword: 'with_incoming', joining_value: 'a' },
          { ...node('c'), joining_keyword: 'with_incoming', joining_value: 'b' },
        ],
      },
    });
    expect(three.statusCode).toBe(400);
    expect(three.json().message).toMatch(/at most 2/);
    const longIn = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: { path: [node('a')], filters: { a: { id: { in: [1, 2, 3, 4] } } } },
    });
    expect(longIn.statusCode).toBe(400);
    const big = await buildApp({ backends: [backend], bodyLimit: 100 });
    const tooBig = await big.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: { path: [node('x'.repeat(200))] },
    });
    expect(tooBig.statusCode).toBe(413);
    await app.close();
    await big.close();
  });

  it('refuses a database file that is not SQLite', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const bad = join(tempDir(), 'bad.sqlite3');
    writeFileSync(bad, 'not a database at all');
    await expect(SqlitePool.open(bad)).rejects.toThrow(/not a readable AiiDA database/);
  });
});
