/**
 * Two Quarry instances of one archive behind Debian's nginx with the documented configuration
 * (docs/nginx-quarry.conf): load balanced, archive answers cached and revalidated, one instance stopped and the
 * other answering alone. Skipped only where nginx is not installed and QUARRY_REQUIRE_NGINX is not set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { appOn, smallArchive, tempDir } from './helpers.js';
import { httpGet } from './support/http-get.js';
import { startNginx, type RunningNginx } from '../src/bench/nginx.js';
import { nginxForTests } from './support/nginx-files.js';

const withNginx = nginxForTests();

interface Instance {
  app: FastifyInstance;
  port: number;
  /** Requests this instance received. */
  requests: () => number;
  close: () => Promise<void>;
}

async function instance(archive: string): Promise<Instance> {
  const served = await appOn(archive, { trustProxy: true });
  let requests = 0;
  served.app.addHook('onRequest', (_request, _reply, done) => {
    requests += 1;
    done();
  });
  await served.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (served.app.server.address() as { port: number }).port;
  return { app: served.app, port, requests: () => requests, close: served.close };
}

describe.skipIf(!withNginx)('two instances behind nginx', () => {
  let a: Instance;
  let b: Instance;
  let nginx: RunningNginx;
  const via = (path: string, headers: Record<string, string> = {}) =>
    httpGet(nginx.port, path, { Host: 'quarry.example', ...headers });

  beforeAll(async () => {
    const archive = await smallArchive(300);
    [a, b] = await Promise.all([instance(archive), instance(archive)]);
    nginx = await startNginx(tempDir('quarry-nginx-'), [a.port, b.port]);
  }, 60_000);
  afterAll(async () => {
    await nginx?.stop();
    await a?.close();
    await b?.close();
  });

  it('spreads requests over both instances', async () => {
    for (let i = 0; i < 20; i++) {
      // Each URL once: none is answered from the cache.
      const answer = await via(`/api/v4/nodes/?limit=1&offset=${i}`);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-cache-status']).toBe('MISS');
      // Quarry wrote the client's host, as nginx forwarded it.
      expect(answer.body.toString()).toContain('"url_root":"http://quarry.example/"');
    }
    expect(a.requests()).toBeGreaterThanOrEqual(5);
    expect(b.requests()).toBeGreaterThanOrEqual(5);
  });

  it('answers again from its cache, and a matching If-None-Match with 304', async () => {
    const path = '/api/v4/nodes/page/1/?perpage=25&orderby=-ctime';
    const first = await via(path);
    expect(first.headers['x-cache-status']).toBe('MISS');
    const reached = a.requests() + b.requests();
    const second = await via(path);
    expect(second.headers['x-cache-status']).toBe('HIT');
    expect(second.body.equals(first.body)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['cache-control']).toBe('public, max-age=300');
    const revalidated = await via(path, { 'If-None-Match': first.headers.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(a.requests() + b.requests()).toBe(reached);

    // Compressed answers are kept beside the plain one (Vary: Accept-Encoding), and revalidate too.
    const br = await via(path, { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect((await via(path, { 'Accept-Encoding': 'br' })).headers['x-cache-status']).toBe('HIT');
    expect((await via(path)).headers['content-encoding']).toBeUndefined();
    const brAgain = await via(path, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    expect(brAgain.status).toBe(304);
  });

  it('passes a 304 of Quarry through for an expired answer (proxy_cache_revalidate)', async () => {
    // An answer nginx does not hold: the conditional request goes to Quarry, whose 304 comes back.
    const path = '/api/v4/nodes/?limit=2&offset=7';
    const tag = (await httpGet(a.port, path, { Host: 'quarry.example' })).headers.etag!;
    const answer = await via(path, { 'If-None-Match': tag });
    expect(answer.status).toBe(304);
  });

  it('publishes the explorer, /docs and OPTIMADE as well as the API', async () => {
    const docs = await via('/docs');
    expect(docs.status).toBe(200);
    expect(docs.body.toString()).toContain('data-method="GET"');
    const optimade = await via('/optimade/v1/info');
    expect(optimade.status).toBe(200);
    expect(JSON.parse(optimade.body.toString()).meta.api_version).toMatch(/^1\./);
    const explorer = await via('/', { Accept: 'text/html' });
    expect(explorer.status).toBe(200);
    expect(explorer.body.toString()).toContain('<div id="app">');
    expect((await via('/healthz')).status).toBe(200);
  });

  it('keeps answering from the other instance when one stops', async () => {
    await a.close();
    const before = b.requests();
    for (let i = 0; i < 10; i++) {
      const answer = await via(`/api/v4/nodes/?limit=1&offset=${100 + i}`);
      expect(answer.status, nginx.errors()).toBe(200);
    }
    expect(b.requests() - before).toBe(10);
  });
});
