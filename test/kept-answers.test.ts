/** Kept answers of an archive's costly GETs (src/http/kept-answers.ts) and the links tree served from them. */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { KeptAnswers } from '../src/http/kept-answers.js';
import { openArchive } from '../src/storage/index.js';
import { richFile } from './conformance/corpus.js';
import { tempDir } from './storage-fixtures.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kept answers of costly GETs', () => {
  it('keeps an answer that took a while, once however many ask at once, and not a quick one', async () => {
    const kept = new KeptAnswers(1024 * 1024, 20);
    let made = 0;
    const slow = async () => {
      made++;
      await pause(40);
      return Buffer.from('slow');
    };
    const first = await Promise.all([1, 2, 3].map(() => kept.answer('slow', slow)));
    expect(first.map(String)).toEqual(['slow', 'slow', 'slow']);
    expect(made).toBe(1);
    expect(String(await kept.answer('slow', slow))).toBe('slow');
    expect(made).toBe(1);

    const quick = async () => (made++, Buffer.from('quick'));
    await kept.answer('quick', quick);
    await kept.answer('quick', quick);
    expect(made).toBe(3);
    expect(kept.size.entries).toBe(1);
  });

  it('keeps nothing that failed: the next request makes it again', async () => {
    const kept = new KeptAnswers(1024 * 1024, 0);
    await expect(kept.answer('k', () => Promise.reject(new Error('no such node')))).rejects.toThrow(
      'no such node',
    );
    expect(String(await kept.answer('k', async () => Buffer.from('now')))).toBe('now');
  });

  it('serves a links tree of an archive with the same bytes and headers whether kept or made', async () => {
    const backend = await openArchive(richFile('rich.aiida'), { cacheDir: tempDir() });
    const app = await buildApp({ backends: [backend] });
    try {
      const list = await app.inject(
        '/api/v4/nodes/?node_type="process.calculation.calcjob.CalcJobNode."&limit=1',
      );
      const uuid = (list.json() as { data: { nodes: { uuid: string }[] } }).data.nodes[0]!.uuid;
      const url = `/api/v4/nodes/${uuid}/links/tree/?in_limit=5`;
      const first = await app.inject(url);
      const second = await app.inject(url);
      expect(first.statusCode).toBe(200);
      expect(second.body).toBe(first.body);
      expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(first.json().data.nodes[0].incoming.length).toBeLessThanOrEqual(5);
      // Another envelope (another query string) is another answer.
      const other = await app.inject(`/api/v4/nodes/${uuid}/links/tree/?in_limit=1`);
      expect(other.json().query_string).toBe('in_limit=1');
      // An unknown node is still a 404 with its message, not a kept failure.
      const missing = await app.inject('/api/v4/nodes/00000000-0000-0000-0000-000000000000/links/tree/');
      expect(missing.statusCode).toBe(404);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
