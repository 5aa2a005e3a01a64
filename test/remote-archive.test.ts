/**
 * Archives at http(s) URLs, served by Debian's nginx on loopback: the conformance replay of rich passes through
 * `/<name>/api/v4/` of the URL source, whose database is extracted once (also by three processes at once, and by
 * `quarry prepare URL`); repository files are read by range, equal to the archive's, within the block cache's
 * bound. Faults and replaced files: remote-archive-faults.test.ts. Skipped only where nginx is not installed and
 * QUARRY_REQUIRE_NGINX is not set.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteSpec } from '../src/sources/remote.js';
import { readSourcesFile } from '../src/sources/sources-file.js';
import { ByteCache, remoteBlocks } from '../src/storage/archive/byte-cache.js';
import { extractionCount } from '../src/storage/archive/extract.js';
import { remoteRequests } from '../src/storage/archive/http-reader.js';
import { loadArchiveCase } from './conformance/replay.js';
import { smallArchive, tempDir } from './helpers.js';
import { httpGet } from './support/http-get.js';
import { nginxForTests, serveFiles, type FileServer } from './support/nginx-files.js';
import { runNode } from './support/run-node.js';
import { portal, until } from './support/remote-portal.js';
import { replayMounted } from './support/replay-mounted.js';
import { cli, serveProcesses } from './support/serving.js';

const withNginx = nginxForTests();

const rich = loadArchiveCase('rich');
const dist = join(import.meta.dirname, '../dist');

describe.skipIf(!withNginx)('archives at http URLs (nginx)', () => {
  let folder: string;
  let server: FileServer;
  let small: string;

  beforeAll(async () => {
    folder = tempDir('quarry-remote-files-');
    if (rich) copyFileSync(rich.archive, join(folder, 'rich.aiida'));
    small = await smallArchive(120, 9);
    copyFileSync(small, join(folder, 'small.aiida'));
    server = await serveFiles(folder, tempDir('quarry-remote-nginx-'));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it.skipIf(!rich)(
    'passes the conformance replay of rich through /rich/api/v4/ of its URL, extracting it once',
    { timeout: 240_000 },
    async () => {
      const cacheDir = tempDir('quarry-remote-cache-');
      const served = await portal([remoteSpec(server.url('rich.aiida'))], 60_000, cacheDir);
      try {
        const before = extractionCount();
        // Concurrent first requests share one opening and one extraction.
        const first = await Promise.all(
          [1, 2, 3].map(() => served.app.inject({ url: '/rich/api/v4/nodes/?limit=1' })),
        );
        expect(first.map((r) => r.statusCode)).toEqual([200, 200, 200]);
        expect(extractionCount() - before).toBe(1);
        await replayMounted(served.app, 'rich', rich!);
        const copies = (await readdir(join(cacheDir, 'archives'))).filter((n) => n.endsWith('.sqlite3'));
        expect(copies).toHaveLength(1);
        expect(copies[0]).toMatch(/^rich-/);
      } finally {
        await served.close();
      }
    },
  );

  it('names a URL source by its file name, also in a sources file', () => {
    expect(remoteSpec('https://data.example.org/x/mc3d.aiida').name).toBe('mc3d');
    expect(remoteSpec('https://archive.example.org/record/file?filename=2D%20topo.aiida&id=7').name).toBe(
      '2D-topo',
    );
    const file = join(tempDir('quarry-remote-yaml-'), 'sources.yaml');
    const url = server.url('small.aiida?token=secret');
    const text = `sources:\n  - archive: ${url}\n  - name: other\n    archive: ${server.url('small.aiida')}\n`;
    writeFileSync(file, text);
    const specs = readSourcesFile(file).specs;
    expect(specs.map((s) => s.name)).toEqual(['small', 'other']);
    expect(specs[0]!.path).toBe(url);
    // The index shows no token.
    expect(specs[0]!.origin).not.toContain('secret');
  });

  it('lists a URL source in /sources/ without asking its server, then opens it on its first request', async () => {
    const asked = remoteRequests();
    const served = await portal([remoteSpec(server.url('small.aiida'))], 60_000);
    try {
      const index = (await served.app.inject({ url: '/sources/' })).json();
      expect(index.sources.find((s: { name: string }) => s.name === 'small')).toMatchObject({
        kind: 'archive',
        open: false,
        api: '/small/api/v4',
      });
      expect(remoteRequests()).toBe(asked);
      expect((await served.app.inject({ url: '/small/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
      expect(remoteRequests()).toBeGreaterThan(asked);
      // The node count is read once the source is open, beside the first request.
      const after = await until(
        async () => (await served.app.inject({ url: '/sources/?name=small' })).json(),
        (index) => index.sources[0]?.nodes !== null,
      );
      expect(after.sources[0]).toMatchObject({ name: 'small', open: true, nodes: 120 });
    } finally {
      await served.close();
    }
  });

  it('downloads repository files by range, equal to the archive file', async () => {
    const served = await portal([remoteSpec(server.url('small.aiida'))], 60_000);
    try {
      const local = await filesOf(served.app, 'local');
      const remote = await filesOf(served.app, 'small');
      expect(remote.length).toBeGreaterThan(0);
      expect(remoteBlocks.bytes).toBeGreaterThan(0);
      expect(remoteBlocks.bytes).toBeLessThanOrEqual(remoteBlocks.maxBytes);
      const metrics = (await served.app.inject({ url: '/metrics' })).body;
      expect(Number(/^quarry_remote_archive_cache_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(
        Number(/^quarry_remote_archive_requests_total (\d+)$/m.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(2);
      // The same generator seed gives other data; compare the remote answers with the archive they come from.
      const direct = await portal(
        [{ name: 'direct', kind: 'archive', origin: small, path: small, version: 'x' }],
        60_000,
      );
      try {
        expect(remote).toEqual(await filesOf(direct.app, 'direct'));
      } finally {
        await direct.close();
      }
      expect(local.length).toBeGreaterThan(0);
    } finally {
      await served.close();
    }
  });

  it.skipIf(!existsSync(dist))(
    'extracts a cold remote archive once when three processes open it at once',
    { timeout: 60_000 },
    async () => {
      const cacheDir = tempDir('quarry-remote-three-');
      const program = `
        const { openArchive } = await import(${JSON.stringify(join(dist, 'storage/index.js'))});
        const { extractionCount } = await import(${JSON.stringify(join(dist, 'storage/archive/extract.js'))});
        const b = await openArchive(process.argv[1], { cacheDir: process.argv[2] });
        const rows = await b.db.values({ sql: 'SELECT count(*) FROM db_dbnode', params: [], pointLookup: true });
        await b.close();
        process.stdout.write(JSON.stringify({ extracted: extractionCount(), nodes: rows[0][0] }));
      `;
      const url = server.url('small.aiida');
      const answers = await Promise.all(
        [1, 2, 3].map(() => runNode<{ extracted: number; nodes: number }>(program, [url, cacheDir])),
      );
      expect(answers.map((a) => a.extracted).reduce((a, b) => a + b, 0)).toBe(1);
      expect(answers.map((a) => a.nodes)).toEqual([120, 120, 120]);
      const left = await readdir(join(cacheDir, 'archives'));
      expect(left.filter((n) => n.endsWith('.sqlite3'))).toHaveLength(1);
      expect(left.filter((n) => n.endsWith('.tmp') || n.endsWith('.lock'))).toEqual([]);
    },
  );

  it.skipIf(!existsSync(cli))(
    'quarry serve URL --processes 2 and quarry prepare URL (built CLI)',
    { timeout: 90_000 },
    async () => {
      const cacheDir = tempDir('quarry-remote-cli-');
      const url = server.url('small.aiida');
      const prepared = spawnSync(process.execPath, [cli, 'prepare', url, '--cache-dir', cacheDir], {
        encoding: 'utf8',
      });
      expect(prepared.status, prepared.stderr).toBe(0);
      expect(prepared.stderr).toContain('1 of 1 archive ready');
      const copies = async () =>
        (await readdir(join(cacheDir, 'archives'))).filter((n) => n.endsWith('.sqlite3'));
      expect(await copies()).toHaveLength(1);
      const { server: quarry, port, stderr } = await serveProcesses(url, 2, ['--cache-dir', cacheDir]);
      try {
        const answers = await Promise.all(
          Array.from({ length: 8 }, () => httpGet(port, '/small/api/v4/nodes/?limit=1')),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
        // The first source is also at the plain prefix.
        expect((await httpGet(port, '/api/v4/nodes/?limit=1')).status).toBe(200);
        // Prepared ahead: the serving processes extracted nothing more.
        expect(await copies()).toHaveLength(1);
        expect(stderr()).not.toMatch(/cannot be opened/);
      } finally {
        const exit = new Promise((resolve) => quarry.once('exit', resolve));
        quarry.kill('SIGTERM');
        await exit;
      }
    },
  );
});

/** Every repository file of the first nodes of `source`, downloaded, as [uuid, filename, bytes hex]. */
async function filesOf(app: FastifyInstance, source: string): Promise<string[][]> {
  const nodes = (await app.inject({ url: `/${source}/api/v4/nodes/?limit=40&orderby=id` })).json().data
    .nodes as { uuid: string }[];
  const out: string[][] = [];
  for (const { uuid } of nodes) {
    const list = await app.inject({ url: `/${source}/api/v4/nodes/${uuid}/repo/list/` });
    expect(list.statusCode).toBe(200);
    for (const entry of list.json().data.repo_list as { name: string; type: string }[]) {
      if (entry.type !== 'FILE') continue;
      const file = await app.inject({
        url: `/${source}/api/v4/nodes/${uuid}/repo/contents?filename="${encodeURIComponent(entry.name)}"`,
      });
      expect(file.statusCode, file.body).toBe(200);
      out.push([uuid, entry.name, file.rawPayload.toString('hex')]);
    }
  }
  return out;
}

describe('the block cache of remote archives', () => {
  it('keeps at most its bound in bytes, the least recently used dropped first', () => {
    const cache = new ByteCache(100);
    cache.set('a', Buffer.alloc(40));
    cache.set('b', Buffer.alloc(40));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', Buffer.alloc(40));
    // b was the least recently used.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.length).toBe(40);
    expect(cache.bytes).toBe(80);
    cache.set('huge', Buffer.alloc(101));
    expect(cache.get('huge')).toBeUndefined();
    cache.drop('a');
    expect(cache.bytes).toBe(40);
    expect(remoteBlocks.maxBytes).toBe(64 << 20);
  });
});
