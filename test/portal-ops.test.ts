/**
 * Operations of a portal: /readyz is ready once the sources are known and checks one with ?source=NAME;
 * /metrics counts requests by source with a bounded number of labels; request logs name the source; a
 * removed source answers 404 naming it; a source that cannot be opened answers 502 naming it, the others go on.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { scanFolders } from '../src/sources/discover.js';
import { sourceOpener } from '../src/sources/open.js';
import type { PortalSpec } from '../src/sources/spec.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { SharedQueryProcesses } from '../src/storage/shared-query-processes.js';
import { smallArchive, tempDir } from './helpers.js';
let archive: string;
let folder: string;
const shared = new SharedQueryProcesses({ size: 1 });

beforeAll(async () => {
  archive = await smallArchive(60, 21);
  folder = tempDir('quarry-portal-ops-');
  for (const name of ['alpha', 'beta', 'gamma']) copyFileSync(archive, join(folder, `${name}.aiida`));
  writeFileSync(join(folder, 'broken.aiida'), 'not a zip at all');
}, 60_000);

afterAll(async () => {
  await shared.close();
});

describe('a portal in one process', () => {
  it('is ready once its sources are known, opens one on its first request, checks one with ?source=', async () => {
    const cacheDir = tempDir('quarry-cache-');
    const catalog = new SourceCatalog(sourceOpener({ cacheDir, sharedProcesses: shared }), { maxOpen: 2 });
    catalog.add(scanFolders([folder]));
    const lines = new PassThrough();
    let log = '';
    lines.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const app = await buildApp({ catalog, logger: true, logFormat: 'json', logDestination: lines });
    try {
      const ready = await app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', sources: [], catalog: { total: 4, open: 0 } });

      const one = await app.inject({ url: '/beta/api/v4/nodes/?limit=1' });
      expect(one.statusCode).toBe(200);
      expect(catalog.list().find((s) => s.name === 'beta')?.open).toBe(true);
      // The plain prefix answers from the first source (alpha), opened for it.
      const plain = await app.inject({ url: '/api/v4/server/' });
      expect(plain.statusCode).toBe(200);
      expect(log).toMatch(/"url":"\/beta\/api\/v4\/nodes\/\?limit=1".*"profile":"beta"/);

      const checked = await app.inject({ url: '/readyz?source=gamma' });
      expect(checked.statusCode).toBe(200);
      expect(checked.json().sources).toEqual([{ name: 'gamma', kind: 'archive', ready: true }]);
      // At most two open: the least recently used went.
      expect(catalog.openSources).toBeLessThanOrEqual(2);

      const broken = await app.inject({ url: '/broken/api/v4/nodes/' });
      expect(broken.statusCode).toBe(502);
      expect(broken.json().message).toMatch(/^the source "broken" cannot be opened: .*not a zip/);
      const notReady = await app.inject({ url: '/readyz?source=broken' });
      expect(notReady.statusCode).toBe(503);
      expect(notReady.json().message).toContain('"broken"');
      expect((await app.inject({ url: '/alpha/api/v4/nodes/?limit=1' })).statusCode).toBe(200);

      // A PostgreSQL source whose server is down: its own requests fail naming it, the others go on.
      const repository = tempDir('quarry-repo-');
      mkdirSync(join(repository, 'loose'));
      writeFileSync(
        join(repository, 'config.json'),
        JSON.stringify({ loose_prefix_len: 2, container_id: 'x' }),
      );
      catalog.add([
        {
          name: 'big',
          kind: 'postgres-profile',
          origin: 'postgres://127.0.0.1:1/aiida',
          version: '1',
          url: 'postgres://reader@127.0.0.1:1/aiida',
          repository,
        } as PortalSpec,
      ]);
      const down = await app.inject({ url: '/big/api/v4/nodes/' });
      // Its database may come back: told when to ask again, not told it is broken.
      expect(down.statusCode).toBe(503);
      expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
      expect(down.json().message).toMatch(/^the source "big" cannot be opened now: .*not reachable/);
      expect((await app.inject({ url: '/gamma/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
      catalog.update(
        catalog
          .names()
          .filter((n) => n !== 'big')
          .map((n) => catalog.spec(n)!),
      );

      catalog.update(
        catalog
          .names()
          .filter((n) => n !== 'beta')
          .map((n) => catalog.spec(n)!),
      );
      const gone = await app.inject({ url: '/beta/api/v4/nodes/' });
      expect(gone.statusCode).toBe(404);
      expect(gone.json().message).toContain('"beta" is no longer served');
      const index = await app.inject({ url: '/sources/' });
      expect(index.json().sources.map((s: { name: string }) => s.name)).toEqual(['alpha', 'broken', 'gamma']);
      expect(index.json().sources[0]).toMatchObject({
        name: 'alpha',
        nodes: expect.any(Number),
        aiida_version: expect.any(String),
      });
    } finally {
      await app.close();
      await catalog.close();
    }
  });

  it('counts requests by source in /metrics, naming at most 100 sources', async () => {
    const backend = await openArchive(archive, { cacheDir: tempDir('quarry-cache-') });
    const named = (name: string): StorageBackend =>
      new Proxy(backend, { get: (target, key) => (key === 'name' ? name : Reflect.get(target, key)) });
    const app = await buildApp({
      backends: Array.from({ length: 120 }, (_, i) => named(`s${i}`)),
      metrics: true,
    });
    try {
      for (let i = 0; i < 120; i++) {
        const res = await app.inject({ url: `/s${i}/api/v4/server/` });
        expect(res.statusCode).toBe(200);
      }
      const text = (await app.inject({ url: '/metrics' })).body;
      const labels = text.split('\n').filter((l) => l.startsWith('quarry_source_requests_total{'));
      expect(labels).toHaveLength(101);
      expect(text).toContain('quarry_source_requests_total{source="s0"} 1');
      expect(text).toContain('quarry_source_requests_total{source="(other)"} 20');
      expect(text).toContain('quarry_sources{state="known"} 120');
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
