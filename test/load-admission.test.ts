/**
 * Many clients at once over HTTP: the explorer's grid query sent by 64 clients together is answered, none
 * refused; and in the heavy lane a client that floods it does not hold up another client's one query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';
import { EXPLORER_GRID_QUERY } from '../src/bench/mix.js';

describe('posted queries under many clients', () => {
  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(3_000, 11), { cacheDir: tempDir(), workers: 2 });
  }, 60_000);
  afterAll(async () => backend?.close());

  it('answers 64 clients sending the grid query at once, refusing none', async () => {
    const app = await buildApp({ backends: [backend] });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as { port: number };
      const statuses: number[] = [];
      let rows = 0;
      // Each query different (an offset of its own): an archive's answers are kept, and repeats would not
      // reach the admission at all.
      const client = async (_: unknown, c: number) => {
        for (let i = 0; i < 3; i++) {
          const answer = await fetch(`http://127.0.0.1:${port}/api/v4/querybuilder/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...EXPLORER_GRID_QUERY, offset: c * 3 + i }),
          });
          statuses.push(answer.status);
          const body = (await answer.json()) as { data?: { node?: unknown[] }; message?: string };
          if (answer.status !== 200) console.log(answer.status, body.message);
          rows = body.data?.node?.length ?? rows;
        }
      };
      await Promise.all(Array.from({ length: 64 }, client));
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(statuses).toHaveLength(192);
      expect(rows).toBeGreaterThan(1_000);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('answers the one query of a second client among the first of a flood of 64 from another', async () => {
    const app = await buildApp({ backends: [backend], trustProxy: true });
    try {
      const finished: string[] = [];
      const post = (from: string, name: string, offset: number) =>
        app
          .inject({
            method: 'POST',
            url: '/api/v4/querybuilder/',
            // Behind a trusted proxy, the client is the address the proxy added last.
            headers: { 'x-forwarded-for': `192.0.2.77, ${from}` },
            // Queries of their own (the first test's are kept now).
            payload: { ...EXPLORER_GRID_QUERY, limit: 4000, offset },
          })
          .then((answer) => {
            finished.push(name);
            return answer.statusCode;
          });
      const flood = Array.from({ length: 64 }, (_, i) => post('10.0.0.1', `flood${i}`, i));
      // Once the flood is queued behind the running query.
      await new Promise((r) => setTimeout(r, 20));
      const lone = post('10.0.0.2', 'lone', 64);
      const statuses = await Promise.all([...flood, lone]);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // Taken in turns by client: after at most a few of the flood's queries, not after all 64.
      const at = finished.indexOf('lone');
      console.log(`the lone client's query was answered at place ${at + 1} of 65`);
      expect(at).toBeLessThan(12);
    } finally {
      await app.close();
    }
  }, 120_000);
});
