/**
 * Posted queries on an archive are answered once and kept with GET answers (src/ops/kept-gets.ts): a repeat is
 * the same bytes, another Host gets its own URLs in the envelope, refusals are not kept. (A live source keeps them under its data version: see the
 * changing database of test/postgres-faults.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sharedCompressions } from '../src/ops/compression.js';
import { keptGetUse } from '../src/ops/kept-gets.js';
import { postedAnswersMade } from '../src/rest/posted-answers.js';
import { exportCache } from '../src/rest/download.js';
import { appOn, smallArchive } from './helpers.js';
import { EXPLORER_GRID_QUERY } from '../src/bench/mix.js';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { buildApp } from '../src/server/app.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import { richFile } from './conformance/corpus.js';
import { sqliteDosFolder } from './support/profile-fixtures.js';
import { tempDir } from './storage-fixtures.js';

describe('kept answers of posted queries', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(await smallArchive(800, 5), { maxRows: 500 });
  }, 60_000);
  afterAll(async () => served?.close());

  const post = (body: unknown, host = 'localhost') =>
    served.app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/?x=1',
      headers: { host, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('answers a repeat from what is kept, and another Host with its own envelope', async () => {
    const query = { ...EXPLORER_GRID_QUERY, limit: 300 };
    const first = await post(query);
    expect(first.statusCode).toBe(200);
    // Kept from its second ask on: a query posted once writes nothing.
    const made = postedAnswersMade();
    expect((await post(query)).body).toBe(first.body);
    expect(postedAnswersMade()).toBe(made + 1);
    const hits = keptGetUse().get('querybuilder')?.hits ?? 0;
    const repeat = await post(query);
    expect(repeat.body).toBe(first.body);
    expect(repeat.headers['x-total-count']).toBe(first.headers['x-total-count']);
    expect(keptGetUse().get('querybuilder')?.hits).toBe(hits + 1);
    expect(postedAnswersMade()).toBe(made + 1);
    // A posted answer carries no tag: HTTP caches do not keep answers of POST.
    expect(repeat.headers.etag).toBeUndefined();
    expect(repeat.headers['cache-control']).toBeUndefined();

    const again = await post(query, 'example.org:8080');
    expect(again.statusCode).toBe(200);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['x-total-count']).toBe(first.headers['x-total-count']);
    const [a, b] = [first.json(), again.json()];
    expect(b.data).toEqual(a.data);
    expect(a.data.node).toHaveLength(300);
    expect({ ...b, data: undefined }).toEqual({
      ...a,
      data: undefined,
      url: 'http://example.org:8080/api/v4/querybuilder/?x=1',
      url_root: 'http://example.org:8080/',
    });
    // The same text as an answer written whole: the kept bytes are the data as it is always written.
    expect(again.body).toBe(first.body.replaceAll('http://localhost/', 'http://example.org:8080/'));
  });

  it('keeps an answer per body text: another limit is another answer', async () => {
    const made = postedAnswersMade();
    const small = await post({ ...EXPLORER_GRID_QUERY, limit: 3 });
    const smaller = await post({ ...EXPLORER_GRID_QUERY, limit: 2 });
    expect(small.json().data.node).toHaveLength(3);
    expect(smaller.json().data.node).toHaveLength(2);
    expect(postedAnswersMade()).toBe(made + 2);
  });

  it('keeps no refusal: a query past --max-rows is refused each time', async () => {
    const use = () => ({ ...keptGetUse().get('querybuilder') });
    const before = use();
    for (let i = 0; i < 2; i++) {
      const refused = await post(EXPLORER_GRID_QUERY);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toMatch(/at most 500/);
    }
    expect(use()).toEqual({ hits: before.hits, misses: (before.misses ?? 0) + 2 });
  });

  it('answers many clients asking the same query at once alike, keeping one answer', async () => {
    const query = { ...EXPLORER_GRID_QUERY, limit: 200, offset: 7 };
    const before = postedAnswersMade();
    const answers = await Promise.all(Array.from({ length: 16 }, () => post(query)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(16).fill(200));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(postedAnswersMade()).toBe(before + 1);
  });

  it('answers clients of another Host sharing the making with their own envelope around the same data', async () => {
    // SQLite writes the first request's envelope around the data: the others' answers are written anew.
    const query = { ...EXPLORER_GRID_QUERY, limit: 150, offset: 11 };
    const before = postedAnswersMade();
    const hosts = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'localhost' : 'example.org:8080'));
    const answers = await Promise.all(hosts.map((host) => post(query, host)));
    expect(postedAnswersMade()).toBe(before + 1);
    const local = answers[0]!.body;
    expect(JSON.parse(local).data.node).toHaveLength(150);
    expect(local).toContain('"url_root":"http://localhost/"');
    answers.forEach((answer, i) => {
      expect(answer.statusCode).toBe(200);
      const expected =
        i % 2 === 0 ? local : local.replaceAll('http://localhost/', 'http://example.org:8080/');
      expect(answer.body).toBe(expected);
    });
  });

  it("compresses a kept answer once per coding and envelope, each client's answer decoding to its own", async () => {
    const query = { ...EXPLORER_GRID_QUERY, limit: 400 };
    const ask = (coding?: string, host = 'localhost') =>
      served.app.inject({
        method: 'POST',
        url: '/api/v4/querybuilder/',
        headers: {
          host,
          'content-type': 'application/json',
          ...(coding ? { 'accept-encoding': coding } : {}),
        },
        payload: JSON.stringify(query),
      });
    const plain = await ask();
    expect(plain.statusCode).toBe(200);
    expect((await ask()).body).toBe(plain.body);
    const before = sharedCompressions();
    // Asked at once by many: compressed once, every answer the same bytes.
    const br = await Promise.all(Array.from({ length: 8 }, () => ask('gzip, deflate, br')));
    expect(br.map((a) => a.headers['content-encoding'])).toEqual(Array(8).fill('br'));
    expect(new Set(br.map((a) => a.rawPayload.toString('base64'))).size).toBe(1);
    expect(brotliDecompressSync(br[0]!.rawPayload).toString()).toBe(plain.body);
    expect(br[0]!.headers['content-length']).toBe(String(br[0]!.rawPayload.length));
    expect(sharedCompressions()).toBe(before + 1);
    const gz = await ask('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(sharedCompressions()).toBe(before + 2);
    // Another Host writes other URLs into the envelope: another form, never the first client's bytes.
    const elsewhere = await ask('br', 'example.org');
    const text = brotliDecompressSync(elsewhere.rawPayload).toString();
    expect(text).toBe(plain.body.replaceAll('http://localhost/', 'http://example.org/'));
    expect(sharedCompressions()).toBe(before + 3);
  });
});

describe('kept answers of posted queries and downloads on a live core.sqlite_dos profile', () => {
  it('answers a repeat from what is kept, and the data as it is after AiiDA writes', async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    const backend = await openSqliteDos(folder);
    const app = await buildApp({ backends: [backend] });
    try {
      const post = () =>
        app.inject({
          method: 'POST',
          url: '/api/v4/querybuilder/',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(EXPLORER_GRID_QUERY),
        });
      const first = await post();
      expect(first.statusCode).toBe(200);
      expect((await post()).body).toBe(first.body);
      const kept = postedAnswersMade();
      // Each request sees the storage through a view of its own: the repeat must still find the kept answer.
      const again = await post();
      expect(again.body).toBe(first.body);
      expect(postedAnswersMade()).toBe(kept);

      // AiiDA (here, this test) changes a label: the next answer is read again and shows it.
      const newest = first.json().data.node[0] as { id: number };
      const db = new BetterSqlite3(join(folder, 'database.sqlite'));
      db.prepare('UPDATE db_dbnode SET label = ? WHERE id = ?').run('relabelled by AiiDA', newest.id);
      db.close();
      const after = await post();
      expect(after.json().data.node[0]).toMatchObject({ id: newest.id, label: 'relabelled by AiiDA' });
      expect(postedAnswersMade()).toBe(kept + 1);

      // Downloads are kept under the data version too: a repeat is not made again, a write makes it again.
      const bands = await app.inject(
        '/api/v4/nodes/?node_type="data.core.array.bands.BandsData."&orderby=id&limit=1',
      );
      const uuid = (bands.json() as { data: { nodes: { uuid: string }[] } }).data.nodes[0]!.uuid;
      const download = () => app.inject(`/api/v4/nodes/${uuid}/download/?download_format=agr`);
      const exported = await download();
      expect(exported.statusCode).toBe(200);
      const exports = exportCache.size.entries;
      expect((await download()).body).toBe(exported.body);
      expect(exportCache.size.entries).toBe(exports);
      const writer = new BetterSqlite3(join(folder, 'database.sqlite'));
      writer.prepare('UPDATE db_dbnode SET label = ? WHERE id = ?').run('relabelled again', newest.id);
      writer.close();
      expect((await download()).body).toBe(exported.body);
      expect(exportCache.size.entries).toBe(exports + 1);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
