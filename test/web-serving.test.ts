/** `quarry serve` serving the web explorer (src/ops/ui.ts): which requests get the app, and how it is cached. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFrom } from '../src/http/context.js';
import { registerUi } from '../src/ops/ui.js';
import { appOn, smallArchive } from './helpers.js';
import { cli, serveProcesses } from './support/serving.js';

const root = join(import.meta.dirname, '..');
const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const uuid = '5533b067-13f2-4606-bbef-26d1aa60edc7';

let archive: string;
beforeAll(async () => {
  // CI's `npm ci` has built the app; a fresh checkout builds it here.
  if (!existsSync(join(root, 'dist/web/index.html'))) {
    execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], {
      cwd: root,
    });
  }
  archive = await smallArchive(50, 3);
});

function configOf(body: string) {
  const json = /<script id="quarry-config" type="application\/json">([^<]*)<\/script>/.exec(body)?.[1];
  return JSON.parse(json ?? 'null') as { api: string; root: string; sources: string[] };
}

describe('the explorer served beside the API', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(archive);
  });
  afterAll(() => served?.close());

  it('answers every path of the app with its page to a browser, never cached, naming the API and the sources', async () => {
    for (const url of [
      '/',
      '/nodes',
      `/nodes/${uuid}`,
      '/groups',
      `/groups/${uuid}/`,
      '/computers',
      `/computers/${uuid}`,
      '/users',
      '/nodes?type=x&page=2',
    ]) {
      const answer = await served.app.inject({ url, headers: html });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers.vary).toContain('Accept');
      expect(configOf(answer.body)).toEqual({ api: '/api/v4', root: '', sources: [served.backend.name] });
    }
  });

  it('answers the search page (/search?q=...) to a browser, and leaves /search to every other client', async () => {
    for (const url of ['/search', '/search?q=GaAs&elements=Ga,As', `/${served.backend.name}/search?q=x`]) {
      const answer = await served.app.inject({ url, headers: html });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(answer.headers.vary).toContain('Accept');
    }
    for (const url of ['/search?q=GaAs', '/search/?q=GaAs']) {
      const answer = await served.app.inject({ url, headers: { accept: 'application/json' } });
      expect(answer.headers['content-type'], url).toContain('application/json');
    }
    // The API's own address, with its slash, is the API's even for a browser.
    const api = await served.app.inject({ url: '/search/?q=GaAs', headers: html });
    expect(api.headers['content-type']).toContain('application/json');
  });

  it('serves the hashed assets the page names, cached for a year', async () => {
    const page = (await served.app.inject({ url: '/', headers: html })).body;
    const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const asset of assets) {
      const answer = await served.app.inject({ url: asset });
      expect(answer.statusCode, asset).toBe(200);
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(answer.headers['content-type']).toMatch(/javascript|css/);
    }
    expect((await served.app.inject({ url: '/assets/no-such-file.js' })).statusCode).toBe(404);
  });

  it('answers an asset again with 304, in ranges, and nothing outside its folder', async () => {
    const page = (await served.app.inject({ url: '/', headers: html })).body;
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page)![1]!;
    const whole = await served.app.inject({ url: asset });
    const etag = whole.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await served.app.inject({ url: asset, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const part = await served.app.inject({ url: asset, headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(whole.body.slice(0, 10));
    const past = await served.app.inject({ url: asset, headers: { range: 'bytes=99999999-' } });
    expect(past.statusCode).toBe(416);
    expect(past.json().message).toBeTruthy();
    for (const url of [
      '/assets/%2e%2e/index.html',
      '/assets/..%2findex.html',
      '/assets/',
      '/assets/.hidden',
    ]) {
      const answer = await served.app.inject({ url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.body, url).not.toContain('<html');
    }
  });

  it('leaves other clients and every API path as they were', async () => {
    const plain = await served.app.inject({ url: '/' });
    expect(plain.statusCode).toBe(404);
    expect(plain.json()).toHaveProperty('available_endpoints');
    expect(
      (await served.app.inject({ url: '/nodes', headers: { accept: 'application/json' } })).statusCode,
    ).toBe(404);
    const api = await served.app.inject({ url: '/api/v4/nodes/?limit=1', headers: html });
    expect(api.statusCode).toBe(200);
    expect(api.headers['content-type']).toContain('application/json');
    // Paths outside the app's scheme stay the API's 404, for browsers too.
    expect((await served.app.inject({ url: '/nodes/a/b', headers: html })).statusCode).toBe(404);
    expect((await served.app.inject({ url: '/favicon.ico', headers: html })).statusCode).toBe(404);
  });
});

describe('where the explorer is not served', () => {
  it('is off with ui: false (--no-ui)', async () => {
    const served = await appOn(archive, { ui: false });
    try {
      const answer = await served.app.inject({ url: '/', headers: html });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toHaveProperty('available_endpoints');
      expect((await served.app.inject({ url: '/assets/x.js' })).statusCode).toBe(404);
    } finally {
      await served.close();
    }
  });

  it('gives way to an API served at the root (--prefix /)', async () => {
    const served = await appOn(archive, { prefix: '/' });
    try {
      const answer = await served.app.inject({ url: '/nodes/?limit=1', headers: html });
      expect(answer.statusCode).toBe(200);
      expect(answer.json().data.nodes).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it('says to build it when it is not built, and the API still works', async () => {
    const served = await appOn(archive);
    const app = Fastify();
    registerUi(app, contextFrom({ backends: [served.backend] }), join(root, 'no-such-build'));
    try {
      const answer = await app.inject({ url: '/nodes', headers: html });
      expect(answer.statusCode).toBe(503);
      expect(answer.body).toContain('npm run build');
      expect(answer.body).toContain('/api/v4/');
    } finally {
      await app.close();
      await served.close();
    }
  });
});

describe('published under a path (--public-url)', () => {
  it('names its assets, its links and the API under that path', async () => {
    const served = await appOn(archive, { publicUrl: 'https://example.org/quarry' });
    try {
      const answer = await served.app.inject({ url: '/nodes', headers: html });
      expect(configOf(answer.body)).toMatchObject({ api: '/quarry/api/v4', root: '/quarry' });
      expect(answer.body).toMatch(/src="\/quarry\/assets\/[^"]+\.js"/);
      expect(answer.body).not.toMatch(/"\/assets\//);
    } finally {
      await served.close();
    }
  });
});

describe.skipIf(!existsSync(cli))('quarry serve and --no-ui (built CLI)', () => {
  it('says where the explorer is, serves it, and does neither with --no-ui', async () => {
    for (const extra of [[], ['--no-ui']]) {
      const serving = await serveProcesses(archive, 1, extra);
      try {
        const page = await fetch(`http://127.0.0.1:${serving.port}/nodes`, { headers: html });
        const api = await fetch(`http://127.0.0.1:${serving.port}/api/v4/nodes/?limit=1`, { headers: html });
        expect(api.status).toBe(200);
        if (extra.length === 0) {
          expect(serving.stderr()).toContain(`quarry: explorer at http://127.0.0.1:${serving.port}/\n`);
          expect(page.status).toBe(200);
          expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        } else {
          expect(serving.stderr()).not.toContain('explorer at');
          expect(page.status).toBe(404);
        }
      } finally {
        serving.server.kill('SIGTERM');
      }
    }
  });
});
