/**
 * Archives at http(s) URLs, served by Debian's nginx on loopback: the conformance replay of rich passes through
 * `/<name>/api/v4/` of the URL source; a server that is down, one without range requests, and a file replaced on
 * the server each give that source a clear answer (503 or 502 naming it) while a local source beside it answers
 * 200; a replaced file is served anew, and one replaced mid-read is never mixed with the old one. Skipped only
 * where nginx is not installed and QUARRY_REQUIRE_NGINX is not set.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxInstalled } from '../src/bench/nginx.js';
import { buildApp } from '../src/http/app.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { sourceOpener } from '../src/sources/open.js';
import { remoteSpec } from '../src/sources/remote.js';
import { readSourcesFile } from '../src/sources/sources-file.js';
import type { PortalSpec } from '../src/sources/spec.js';
import { ByteCache, remoteBlocks } from '../src/storage/archive/byte-cache.js';
import { extractionCount } from '../src/storage/archive/extract.js';
import { remoteRequests } from '../src/storage/archive/http-reader.js';
import { loadArchiveCase } from './conformance/replay.js';
import { smallArchive, tempDir } from './helpers.js';
import { replayMounted } from './support/replay-mounted.js';
import { httpGet } from './support/http-get.js';
import { serveFiles, type FileServer } from './support/nginx-files.js';
import { cli, serveProcesses } from './support/serving.js';

if (!nginxInstalled() && process.env.QUARRY_REQUIRE_NGINX === '1')
  throw new Error('QUARRY_REQUIRE_NGINX=1 but /usr/sbin/nginx is missing: npm run setup:system');

const rich = loadArchiveCase('rich');
const dist = join(import.meta.dirname, '../dist');

interface Portal {
  app: FastifyInstance;
  catalog: SourceCatalog<PortalSpec>;
  close: () => Promise<void>;
}

/** A portal of `specs` plus a local archive named `local`, in-process, each with its own cache folder. */
async function portal(specs: PortalSpec[], revalidateMs: number, cacheDir = tempDir('quarry-remote-cache-')) {
  const local = await smallArchive(60, 5);
  const catalog = new SourceCatalog<PortalSpec>(sourceOpener({ cacheDir, revalidateMs }));
  catalog.add([...specs, { name: 'local', kind: 'archive', origin: local, path: local, version: 'local' }]);
  const app = await buildApp({ catalog, metrics: true });
  return {
    app,
    catalog,
    close: async () => {
      await app.close();
      await catalog.close();
    },
  } satisfies Portal;
}

/** The archive `name` in the served folder replaced by `from`, as an upload does (a new file renamed in place). */
function replace(folder: string, name: string, from: string, secondsAhead: number) {
  const temp = join(folder, `.${name}.part`);
  copyFileSync(from, temp);
  // Another mtime than the file it replaces, whatever the clock's resolution: nginx's ETag is mtime and size.
  const when = new Date(Date.now() + secondsAhead * 1000);
  utimesSync(temp, when, when);
  renameSync(temp, join(folder, name));
}

async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!nginxInstalled())('archives at http URLs (nginx)', () => {
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

  it('answers 503 naming the source while its server is down, and again once it is back; a local source answers 200', async () => {
    const served = await portal([remoteSpec(server.url('small.aiida'))], 300);
    try {
      expect((await served.app.inject({ url: '/small/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
      await server.stop();
      await new Promise((r) => setTimeout(r, 400));
      // Open: its check finds no server. Not opened yet: it cannot be opened.
      const down = await served.app.inject({ url: '/small/api/v4/nodes/?limit=1' });
      expect(down.statusCode).toBe(503);
      expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
      expect(down.json().message).toMatch(
        /^the source "small" cannot be served now: .*small\.aiida cannot be reached \(ECONNREFUSED\)/,
      );
      const fresh = await portal([remoteSpec(server.url('small.aiida'))], 300);
      try {
        const never = await fresh.app.inject({ url: '/small/api/v4/nodes/?limit=1' });
        expect(never.statusCode).toBe(503);
        expect(never.headers['retry-after']).toBeDefined();
        expect(never.json().message).toMatch(/^the source "small" cannot be opened now: .*cannot be reached/);
        expect((await fresh.app.inject({ url: '/local/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
      } finally {
        await fresh.close();
      }
      expect((await served.app.inject({ url: '/local/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
      await server.start();
      expect((await served.app.inject({ url: '/small/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
    } finally {
      await server.start().catch(() => undefined);
      await served.close();
    }
  });

  it('answers 502 naming the source when its server ignores range requests (max_ranges 0)', async () => {
    const whole = await serveFiles(folder, tempDir('quarry-remote-nginx-'), { ranges: false });
    const served = await portal([remoteSpec(whole.url('small.aiida'))], 300);
    try {
      const answer = await served.app.inject({ url: '/small/api/v4/nodes/?limit=1' });
      expect(answer.statusCode).toBe(502);
      expect(answer.json().message).toMatch(
        /^the source "small" cannot be opened: .*small\.aiida: its server does not answer range requests/,
      );
      expect((await served.app.inject({ url: '/local/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
    } finally {
      await served.close();
      await whole.stop();
    }
  });

  it('answers 502 naming the source for a URL the server does not have, or a file that is no archive', async () => {
    writeFileSync(join(folder, 'notes.aiida'), 'these are notes, not a zip\n'.repeat(100));
    const served = await portal(
      [remoteSpec(server.url('missing.aiida')), remoteSpec(server.url('notes.aiida'))],
      60_000,
    );
    try {
      const missing = await served.app.inject({ url: '/missing/api/v4/nodes/' });
      expect(missing.statusCode).toBe(502);
      expect(missing.json().message).toMatch(
        /^the source "missing" cannot be opened: .*missing\.aiida: its server answered 404 Not Found instead of the archive; check the URL$/,
      );
      const notes = await served.app.inject({ url: '/notes/api/v4/nodes/' });
      expect(notes.statusCode).toBe(502);
      expect(notes.json().message).toMatch(
        /^the source "notes" cannot be opened: .*notes\.aiida is not a zip file/,
      );
      expect((await served.app.inject({ url: '/local/api/v4/nodes/?limit=1' })).statusCode).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('serves a file replaced on the server anew, within the revalidation interval', async () => {
    copyFileSync(small, join(folder, 'swap.aiida'));
    const next = await smallArchive(90, 11);
    const served = await portal(
      [
        remoteSpec(server.url('swap.aiida')),
        { name: 'next', kind: 'archive', origin: next, path: next, version: 'next' },
      ],
      300,
    );
    const first = async (name: string) =>
      (await served.app.inject({ url: `/${name}/api/v4/nodes/?limit=1&orderby=id` })).json().data.nodes[0]
        .uuid as string;
    try {
      const before = await first('swap');
      const wanted = await first('next');
      expect(before).not.toBe(wanted);
      replace(folder, 'swap.aiida', next, 10);
      expect(
        await until(
          () => first('swap'),
          (uuid) => uuid === wanted,
        ),
      ).toBe(wanted);
    } finally {
      await served.close();
    }
  });

  it.skipIf(!rich)(
    'never mixes a file replaced mid-read with the old one: 503, then the new file',
    async () => {
      copyFileSync(rich!.archive, join(folder, 'mid.aiida'));
      const served = await portal(
        [
          remoteSpec(server.url('mid.aiida')),
          { name: 'direct', kind: 'archive', origin: rich!.archive, path: rich!.archive, version: 'd' },
          { name: 'was', kind: 'archive', origin: small, path: small, version: 'w' },
        ],
        // Not checked again during the test: the change is seen by the reads themselves.
        600_000,
      );
      try {
        const nodes = (await served.app.inject({ url: '/mid/api/v4/nodes/?limit=200&orderby=id' })).json()
          .data.nodes as { uuid: string }[];
        replace(folder, 'mid.aiida', small, 20);
        let refused: { status: number; message: string; retry: unknown } | undefined;
        let same = 0;
        outer: for (const { uuid } of nodes) {
          const list = await served.app.inject({ url: `/direct/api/v4/nodes/${uuid}/repo/list/` });
          for (const entry of list.json().data.repo_list as { name: string; type: string }[]) {
            if (entry.type !== 'FILE') continue;
            const path = `/api/v4/nodes/${uuid}/repo/contents?filename="${encodeURIComponent(entry.name)}"`;
            const answer = await served.app.inject({ url: `/mid${path}` });
            if (answer.statusCode !== 200) {
              refused = {
                status: answer.statusCode,
                message: answer.json().message,
                retry: answer.headers['retry-after'],
              };
              break outer;
            }
            // Whatever is answered is the file that was opened: read from blocks fetched before the change.
            const expected = await served.app.inject({ url: `/direct${path}` });
            expect(answer.rawPayload.equals(expected.rawPayload)).toBe(true);
            same += 1;
          }
        }
        expect(refused).toMatchObject({ status: 503, retry: '1' });
        expect(refused!.message).toMatch(
          /^the source "mid": .*mid\.aiida was replaced on its server while it was read/,
        );
        expect(same).toBeLessThan(20);
        // The next request opens the new file.
        const now = await served.app.inject({ url: '/mid/api/v4/nodes/?limit=1&orderby=id' });
        const was = await served.app.inject({ url: '/was/api/v4/nodes/?limit=1&orderby=id' });
        expect(now.statusCode, now.body).toBe(200);
        expect(was.statusCode, was.body).toBe(200);
        expect(now.json().data.nodes[0].uuid).toBe(was.json().data.nodes[0].uuid);
      } finally {
        await served.close();
      }
    },
  );
  it.skipIf(!rich)(
    'answers 503 before any byte when a large file (streamed) is asked after the file was replaced',
    async () => {
      copyFileSync(rich!.archive, join(folder, 'big.aiida'));
      const served = await portal(
        [
          remoteSpec(server.url('big.aiida')),
          { name: 'direct', kind: 'archive', origin: rich!.archive, path: rich!.archive, version: 'd' },
        ],
        600_000,
      );
      try {
        const large = await largeFile(served.app, 'direct', 300_000);
        expect(large).toBeDefined();
        // Read once before the change: its local header is kept, its data (streamed) is not.
        const before = await served.app.inject({ url: `/big${large!}` });
        const expected = await served.app.inject({ url: `/direct${large!}` });
        expect(before.rawPayload.equals(expected.rawPayload)).toBe(true);
        replace(folder, 'big.aiida', small, 30);
        const answer = await served.app.inject({ url: `/big${large!}` });
        expect(answer.statusCode, answer.body).toBe(503);
        expect(answer.headers['retry-after']).toBe('1');
        expect(answer.json().message).toMatch(
          /^the source "big": .* was replaced on its server while it was read/,
        );
      } finally {
        await served.close();
      }
    },
  );
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
      const answers = await Promise.all([1, 2, 3].map(() => runNode(program, [url, cacheDir])));
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
      expect(prepared.stderr).toContain('1 of 1 archives ready');
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

/** The path of a repository file of `source` longer than `bytes`, found by downloading them in node order. */
async function largeFile(app: FastifyInstance, source: string, bytes: number): Promise<string | undefined> {
  const nodes = (await app.inject({ url: `/${source}/api/v4/nodes/?limit=400&orderby=id` })).json().data
    .nodes as { uuid: string }[];
  for (const { uuid } of nodes) {
    const list = await app.inject({ url: `/${source}/api/v4/nodes/${uuid}/repo/list/` });
    for (const entry of list.json().data.repo_list as { name: string; type: string }[]) {
      if (entry.type !== 'FILE') continue;
      const path = `/api/v4/nodes/${uuid}/repo/contents?filename="${encodeURIComponent(entry.name)}"`;
      const file = await app.inject({ url: `/${source}${path}` });
      if (file.rawPayload.length > bytes) return path;
    }
  }
  return undefined;
}

/** A Node program run as a process of its own, its JSON output parsed. */
function runNode(program: string, args: string[]): Promise<{ extracted: number; nodes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', program, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
  });
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
