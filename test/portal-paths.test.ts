/**
 * Sources by path: every source answers at `/<name>/api/v4/...` exactly as a single source does, with `url`,
 * `url_root` and `Link` naming that path; the conformance replay of rich passes through `/rich/api/v4/`
 * while another source is the default at the plain prefix.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { scanFolders } from '../src/sources/discover.js';
import { sourceOpener } from '../src/sources/open.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { SharedQueryProcesses } from '../src/storage/shared-query-processes.js';
import { loadArchiveCase } from './conformance/replay.js';
import { smallArchive, tempDir } from './helpers.js';
import { replayMounted } from './support/replay-mounted.js';

const rich = loadArchiveCase('rich');
const temp = () => tempDir('quarry-portal-');

describe('sources by path', () => {
  let app: FastifyInstance;
  const backends: StorageBackend[] = [];

  beforeAll(async () => {
    const small = await smallArchive(200, 3);
    backends.push(await openArchive(small, { cacheDir: temp() }));
    if (rich) backends.push(await openArchive(rich.archive, { cacheDir: temp() }));
    app = await buildApp({ backends });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await Promise.all(backends.map((b) => b.close()));
  });

  it('answers at /<name>/api/v4/ with url, url_root and Link naming that path', async () => {
    const name = backends[0]!.name;
    const plain = await app.inject({ url: '/api/v4/nodes/page/1/?perpage=5' });
    const byPath = await app.inject({ url: `/${name}/api/v4/nodes/page/1/?perpage=5` });
    expect(byPath.statusCode).toBe(200);
    const a = plain.json();
    const b = byPath.json();
    expect(b.url).toBe(`http://localhost:80/${name}/api/v4/nodes/page/1/?perpage=5`);
    expect(b.url_root).toBe(`http://localhost:80/${name}/`);
    expect(b.path).toBe(a.path);
    expect(b.data).toEqual(a.data);
    expect(String(byPath.headers.link)).toContain(`http://localhost:80/${name}/api/v4/nodes/page/`);
    expect(String(byPath.headers.link)).not.toMatch(/80\/api\/v4/);
    // The same resource under two paths: two entity tags, so no cache confuses them.
    expect(byPath.headers.etag).toBeDefined();
    expect(byPath.headers.etag).not.toBe(plain.headers.etag);
  });

  it('keeps the first source at the plain prefix and ?profile= beside it', async () => {
    const server = await app.inject({ url: '/api/v4/server/' });
    expect(server.json().data.AiiDA_version).toBe(backends[0]!.aiidaVersion);
    if (!rich) return;
    const first = await app.inject({ url: '/api/v4/nodes/?limit=1&orderby=id' });
    const viaProfile = await app.inject({ url: '/api/v4/nodes/?limit=1&orderby=id&profile=rich' });
    const viaPath = await app.inject({ url: '/rich/api/v4/nodes/?limit=1&orderby=id' });
    expect(viaProfile.statusCode).toBe(200);
    expect(viaProfile.json().data.nodes).toEqual(viaPath.json().data.nodes);
    expect(viaProfile.json().data.nodes).not.toEqual(first.json().data.nodes);
  });

  it('answers a name that is no source with the usual 404, and a bad profile with a 400 naming the sources', async () => {
    const none = await app.inject({ url: '/no-such-source/api/v4/nodes/' });
    expect(none.statusCode).toBe(404);
    const bad = await app.inject({ url: '/api/v4/nodes/?profile=nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(backends[0]!.name);
  });

  it.skipIf(!rich)(
    'passes the conformance replay of rich through /rich/api/v4/',
    { timeout: 180_000 },
    async () => replayMounted(app, 'rich', rich!),
  );

  it.skipIf(!rich)(
    'passes it too when rich is one of a portal, opened on demand and run on shared query processes',
    { timeout: 180_000 },
    async () => {
      const folder = temp();
      copyFileSync(rich!.archive, join(folder, 'rich.aiida'));
      const small = await smallArchive(60, 4);
      copyFileSync(small, join(folder, 'another.aiida'));
      const shared = new SharedQueryProcesses({ size: 2 });
      const catalog = new SourceCatalog(sourceOpener({ cacheDir: temp(), sharedProcesses: shared }), {
        maxOpen: 1,
      });
      catalog.add(scanFolders([folder]));
      const portal = await buildApp({ catalog });
      try {
        expect(catalog.openSources).toBe(0);
        await replayMounted(portal, 'rich', rich!);
        // Asked between two replays' worth of requests, the other source closed rich (bound of one open).
        expect((await portal.inject({ url: '/another/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
        expect(catalog.list().find((s) => s.name === 'rich')?.open).toBe(false);
        expect(shared.processIds.length).toBeLessThanOrEqual(2);
      } finally {
        await portal.close();
        await catalog.close();
        await shared.close();
      }
    },
  );
});
