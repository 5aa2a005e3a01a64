/**
 * Kept answers once per machine: serving processes that open the same file of kept answers answer from each
 * other's (two apps here, each with its own connection to the file, as two processes have), compressed forms
 * included, and the file stays within its bound.
 */
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFile } from '../src/ops/answer-file.js';
import { keptGetUse } from '../src/ops/kept-gets.js';
import { appOn, smallArchive } from './helpers.js';
import { tempDir } from './support/temp.js';

const hits = (kind: string) => keptGetUse().get(kind as never)?.hits ?? 0;

describe('kept answers in a file every serving process opens', () => {
  let first: Awaited<ReturnType<typeof appOn>>;
  let second: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    const archive = await smallArchive(600, 3);
    const file = join(tempDir('quarry-kept-file-'), 'kept.sqlite');
    first = await appOn(archive, { keptAnswers: { file, bytes: 16 * 1024 * 1024 } });
    second = await appOn(archive, { keptAnswers: { file, bytes: 16 * 1024 * 1024 } });
  }, 60_000);
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it("answers from another process's kept answer: the same bytes, headers and tag", async () => {
    const url = '/api/v4/nodes/page/2/?perpage=20&orderby=-ctime';
    const made = await first.app.inject(url);
    expect(made.statusCode).toBe(200);
    // Kept at its second ask.
    expect((await first.app.inject(url)).body).toBe(made.body);
    const before = hits('node_page');
    const kept = await second.app.inject(url);
    expect(hits('node_page')).toBe(before + 1);
    expect(kept.statusCode).toBe(200);
    expect(kept.body).toBe(made.body);
    expect(kept.headers.etag).toBe(made.headers.etag);
    expect(kept.headers['x-total-count']).toBe(made.headers['x-total-count']);
    expect(kept.headers.link).toBe(made.headers.link);
    expect(kept.headers['content-type']).toBe(made.headers['content-type']);
  });

  it('keeps a compressed form once, sent by every process with its coded tag', async () => {
    const url = '/api/v4/nodes/?limit=200&orderby=id';
    const plain = await first.app.inject(url);
    const br = { 'accept-encoding': 'br' };
    const made = await first.app.inject({ url, headers: br });
    expect(made.headers['content-encoding']).toBe('br');
    const kept = await second.app.inject({ url, headers: br });
    expect(kept.headers['content-encoding']).toBe('br');
    expect(kept.headers.vary).toMatch(/Accept-Encoding/);
    expect(kept.headers.etag).toBe(made.headers.etag);
    expect(kept.headers.etag).toMatch(/-br"$/);
    expect(kept.rawPayload.equals(made.rawPayload)).toBe(true);
    expect(brotliDecompressSync(kept.rawPayload).toString()).toBe(plain.body);
  });

  it('holds at most its bound, the least recently used going first', () => {
    const store = answerFile(join(tempDir('quarry-kept-bound-'), 'kept.sqlite'), 1024 * 1024);
    try {
      const body = Buffer.alloc(50 * 1024, 7);
      for (let i = 0; i < 60; i++)
        store.set(`answer ${i}`, { body, headers: { 'content-type': 'text/plain' } });
      expect(store.size.bytes).toBeLessThanOrEqual(1024 * 1024);
      const hot = store.get('answer 59');
      expect(hot?.body.equals(body)).toBe(true);
      // Read again, it is the same bytes held in the process, not another copy read from the file.
      expect(store.get('answer 59')?.body).toBe(hot?.body);
      expect(store.get('answer 0')).toBeUndefined();
      // Larger than an eighth of the bound: sent, never kept.
      store.set('large', { body: Buffer.alloc(200 * 1024), headers: {} });
      expect(store.get('large')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
