/** HTTP caching: strong ETags, 304 answers that run no query, Cache-Control for archives and live profiles. */
import { copyFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { cacheControl, codedTag, entityTag, matchingTag } from '../src/ops/etag.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import { appOn, listeningOn, smallArchive, tempDir } from './helpers.js';
import { httpGet } from './support/http-get.js';
import { countStatements } from './support/statements.js';
import { oddSqliteDos } from './support/odd-data.js';

describe('tags and conditions', () => {
  const inputs = { settings: '["0.1.0"]', data: 'a:abc', base: 'http://h', url: '/api/v4/nodes/' };

  it('makes a strong tag that changes with each of its inputs and nothing else', () => {
    const tag = entityTag(inputs);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(entityTag({ ...inputs })).toBe(tag);
    for (const key of Object.keys(inputs) as (keyof typeof inputs)[]) {
      expect(entityTag({ ...inputs, [key]: `${inputs[key]}x` })).not.toBe(tag);
    }
  });

  it('names the coding of a compressed representation in its tag', () => {
    expect(codedTag('"abc"', 'br')).toBe('"abc-br"');
    expect(codedTag('"abc"', 'gzip')).toBe('"abc-gzip"');
    expect(codedTag('"abc"', undefined)).toBe('"abc"');
  });

  it('matches If-None-Match weakly, in lists, in any coding, and nothing else', () => {
    const tag = entityTag(inputs);
    const core = tag.slice(1, -1);
    expect(matchingTag(tag, tag)).toBe(tag);
    expect(matchingTag(`W/${tag}`, tag)).toBe(tag);
    expect(matchingTag(`"other", "${core}-gzip"`, tag)).toBe(`"${core}-gzip"`);
    expect(matchingTag(`"${core}-br"`, tag)).toBe(`"${core}-br"`);
    expect(matchingTag(undefined, tag)).toBeUndefined();
    expect(matchingTag('*', tag)).toBeUndefined();
    expect(matchingTag(`"x${core}"`, tag)).toBeUndefined();
    expect(matchingTag(`"${core}x"`, tag)).toBeUndefined();
    expect(matchingTag(`"${core}-deflate"`, tag)).toBeUndefined();
    expect(matchingTag(core, tag)).toBeUndefined();
  });

  it('lets caches keep archive answers for max-age and revalidate live ones every time', () => {
    expect(cacheControl(false, 300)).toBe('public, max-age=300');
    expect(cacheControl(false, 0)).toBe('no-cache');
    expect(cacheControl(true, 300)).toBe('no-cache');
  });
});

describe('over HTTP, from an archive', () => {
  let archive: string;
  let served: Awaited<ReturnType<typeof listeningOn>>;
  let statements: () => number;
  const page = '/api/v4/nodes/page/2/?perpage=5&orderby=-ctime';

  beforeAll(async () => {
    archive = await smallArchive(400);
    served = await listeningOn(archive);
    statements = countStatements(served.backend.db);
  }, 60_000);
  afterAll(async () => served?.close());

  it('gives every 200 a strong ETag and Cache-Control, and answers a matching If-None-Match with 304', async () => {
    const first = await httpGet(served.port, page);
    expect(first.status).toBe(200);
    const tag = first.headers.etag!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=300');
    // Kept from its second ask on.
    expect((await httpGet(served.port, page)).body.equals(first.body)).toBe(true);

    const before = statements();
    const again = await httpGet(served.port, page, { 'If-None-Match': tag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(tag);
    expect(again.headers['cache-control']).toBe('public, max-age=300');
    expect(again.headers['access-control-allow-origin']).toBe('*');
    expect(statements()).toBe(before);

    // Another tag, or none, gets the whole answer again, with the same tag: the kept bytes, with no query.
    const other = await httpGet(served.port, page, { 'If-None-Match': '"somethingelse"' });
    expect(other.status).toBe(200);
    expect(other.headers.etag).toBe(tag);
    expect(other.headers['x-total-count']).toBe(first.headers['x-total-count']);
    expect(other.headers.link).toBe(first.headers.link);
    expect(other.body.equals(first.body)).toBe(true);
    expect(statements()).toBe(before);
  });

  it('answers HEAD with the headers of GET, and a conditional HEAD with 304', async () => {
    for (const path of [page, '/api/v4/nodes/statistics/', '/api/v4/server/']) {
      const get = await httpGet(served.port, path);
      const head = await httpGet(served.port, path, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      // Not Content-Length: the envelope names the method (`"method": "HEAD"`), as the reference's does.
      for (const name of [
        'etag',
        'cache-control',
        'content-type',
        'x-total-count',
        'vary',
        'content-encoding',
      ]) {
        expect(head.headers[name], `${path} ${name}`).toBe(get.headers[name]);
      }
      const conditional = await httpGet(served.port, path, { 'If-None-Match': get.headers.etag! }, 'HEAD');
      expect(conditional.status).toBe(304);
    }
  });

  it('gives error answers no tag and never turns them into 304', async () => {
    const missing = await httpGet(served.port, '/api/v4/nodes/00000000-0000-4000-8000-000000000000/');
    expect(missing.status).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect(missing.headers['cache-control']).toBeUndefined();
    const bad = await httpGet(served.port, '/api/v4/nodes/?limit=abc', { 'If-None-Match': '*' });
    expect(bad.status).toBe(400);
    expect(bad.headers.etag).toBeUndefined();
    const unknown = await httpGet(served.port, '/api/v4/nodes/?profile=nosuch');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.etag).toBeUndefined();
    const options = await httpGet(served.port, '/api/v4/nodes/', {}, 'OPTIONS');
    expect(options.headers.etag).toBeUndefined();
  });

  it('gives each URL and each Host its own tag', async () => {
    const tags = new Set<string>();
    for (const [path, host] of [
      ['/api/v4/nodes/', 'a.example'],
      ['/api/v4/nodes/', 'b.example'],
      ['/api/v4/nodes/?limit=3', 'a.example'],
      ['/api/v4/nodes/?limit=4', 'a.example'],
      ['/api/v4/nodes/page/1/', 'a.example'],
    ] as const) {
      const answer = await httpGet(served.port, path, { Host: host });
      expect(answer.body.toString()).toContain(`http://${host}/`);
      tags.add(answer.headers.etag!);
    }
    expect(tags.size).toBe(5);
    // A tag of one Host is no validator for another: its answer names the other host.
    const [aTag] = tags;
    const b = await httpGet(served.port, '/api/v4/nodes/', { Host: 'b.example', 'If-None-Match': aTag! });
    expect(b.status).toBe(200);
  });

  it('keeps tags across processes and machines serving the same file, and honours --cache-max-age', async () => {
    // Another copy of the file, elsewhere, with another mtime: a second machine serving the same archive.
    const copy = join(tempDir(), 'elsewhere.aiida');
    copyFileSync(archive, copy);
    utimesSync(copy, new Date(2001, 1, 1), new Date(2001, 1, 1));
    const other = await listeningOn(copy, { cacheMaxAge: 60 });
    const unset = await listeningOn(archive, { cacheMaxAge: 0 });
    try {
      for (const path of [page, '/api/v4/nodes/statistics/', '/api/v4/users/']) {
        // The same public name, as behind a load balancer: the answers' url fields are the same.
        const host = { Host: 'quarry.example' };
        const here = await httpGet(served.port, path, host);
        const there = await httpGet(other.port, path, host);
        expect(there.body.equals(here.body)).toBe(true);
        expect(there.headers.etag).toBe(here.headers.etag);
        expect(there.headers['cache-control']).toBe('public, max-age=60');
        const revalidated = await httpGet(other.port, path, { ...host, 'If-None-Match': here.headers.etag! });
        expect(revalidated.status).toBe(304);
        expect((await httpGet(unset.port, path)).headers['cache-control']).toBe('no-cache');
      }
    } finally {
      await other.close();
      await unset.close();
    }
  });

  it('gives the same tag whatever the Host when --public-url fixes the base', async () => {
    const fixed = await listeningOn(archive, { publicUrl: 'https://data.example.org/quarry' });
    try {
      const a = await httpGet(fixed.port, '/api/v4/nodes/', { Host: 'a.example' });
      const b = await httpGet(fixed.port, '/api/v4/nodes/', { Host: 'b.example' });
      expect(a.headers.etag).toBe(b.headers.etag);
      expect(a.body.equals(b.body)).toBe(true);
    } finally {
      await fixed.close();
    }
  });
});

describe('with the API at the root (an empty --prefix)', () => {
  it("tags the API's answers, never the server's own (the index of sources, OPTIMADE's index), a source's OPTIMADE weakly", async () => {
    const served = await appOn(await smallArchive(200), { prefix: '' });
    try {
      const get = (url: string) => served.app.inject({ method: 'GET', url });
      const nodes = await get('/nodes/?limit=2');
      expect(nodes.statusCode).toBe(200);
      expect(nodes.headers.etag).toMatch(/^"[\w-]+"$/);
      for (const own of ['/sources/', '/optimade/index/v1/info']) {
        const answer = await get(own);
        expect(answer.statusCode, own).toBe(200);
        expect(answer.headers.etag, own).toBeUndefined();
      }
      const optimade = await get('/optimade/v1/info');
      expect(optimade.statusCode).toBe(200);
      expect(optimade.headers.etag).toMatch(/^W\/"[\w-]+"$/);
    } finally {
      await served.close();
    }
  });
});

describe('over HTTP, from a live core.sqlite_dos profile', () => {
  it('changes its tags when the database is written, and asks clients to revalidate', async () => {
    const folder = oddSqliteDos(tempDir());
    const backend = await openSqliteDos(folder, { name: 'live' });
    const app = await buildApp({ backends: [backend] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      const path = '/api/v4/nodes/?orderby=id&limit=2';
      const first = await httpGet(port, path);
      expect(first.status).toBe(200);
      expect(first.headers['cache-control']).toBe('no-cache');
      const tag = first.headers.etag!;
      expect((await httpGet(port, path, { 'If-None-Match': tag })).status).toBe(304);

      // AiiDA writes (here: a new label), as another process would.
      const db = new BetterSqlite3(join(folder, 'database.sqlite'));
      db.prepare(
        "UPDATE db_dbnode SET label = 'relabelled' WHERE id = (SELECT min(id) FROM db_dbnode)",
      ).run();
      db.close();

      const after = await httpGet(port, path, { 'If-None-Match': tag });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(tag);
      expect(after.body.toString()).toContain('relabelled');
      expect((await httpGet(port, path, { 'If-None-Match': after.headers.etag! })).status).toBe(304);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});

describe('conditional requests in /metrics', () => {
  it('counts the 304s and the full answers of requests that sent If-None-Match', async () => {
    const served = await listeningOn(await smallArchive(60, 3), { metrics: true });
    try {
      const url = '/api/v4/nodes/?limit=3';
      const first = await served.app.inject({ url });
      const tag = first.headers.etag as string;
      expect((await served.app.inject({ url, headers: { 'if-none-match': tag } })).statusCode).toBe(304);
      expect((await served.app.inject({ url, headers: { 'if-none-match': '"stale"' } })).statusCode).toBe(
        200,
      );
      const metrics = (await served.app.inject({ url: '/metrics' })).body;
      expect(metrics).toContain('quarry_http_conditional_requests_total{result="not_modified"} 1');
      expect(metrics).toContain('quarry_http_conditional_requests_total{result="modified"} 1');
    } finally {
      await served.close();
    }
  });
});
