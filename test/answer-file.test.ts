/**
 * Kept answers once per machine: serving processes that open the same file of kept answers answer from each
 * other's (two apps here, each with its own connection to the file, as two processes have), compressed forms
 * included, and the file stays within its bound.
 */
import { readFileSync } from 'node:fs';
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

  it('maps only the answers read: writing, counting and letting answers go bring no page of the file in', () => {
    const file = join(tempDir('quarry-kept-mapped-'), 'kept.sqlite');
    const store = answerFile(file, 8 * 1024 * 1024);
    try {
      // 24 MB written through an 8 MB bound: each eviction frees answers of 400 kB, page by page.
      for (let i = 0; i < 60; i++)
        store.set(`answer ${i}`, {
          body: Buffer.alloc(400 * 1024, i),
          headers: { 'content-type': 'text/plain' },
        });
      expect(store.size.bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
      expect(mappedKb(file), 'pages of the file in this process after writes').toBeLessThan(256);
      expect(store.get('answer 59')?.body.equals(Buffer.alloc(400 * 1024, 59))).toBe(true);
      // Answers read are mapped (those not in the write-ahead log), and no more than them and the pages the
      // system maps around each page read.
      expect(store.get('answer 58')?.body.length).toBe(400 * 1024);
      expect(mappedKb(file)).toBeLessThanOrEqual(2 * 400 + 512);
    } finally {
      store.close();
    }
  });
});

/** Resident kB of this process's mappings of `file` (Linux's /proc/self/smaps). */
function mappedKb(file: string): number {
  let kb = 0;
  let current = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) current = line.endsWith(` ${file}`);
    else if (current && line.startsWith('Rss:')) kb += Number(/(\d+)/.exec(line)![1]);
  }
  return kb;
}
