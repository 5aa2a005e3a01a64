/**
 * `quarry serve FOLDER` and `quarry serve --sources FILE` as real processes: hundreds of archives known at
 * start and opened on their first request, each at its own path; archives added, removed and replaced while
 * it runs; SIGHUP reads the sources file again; clashing names stop the start with both named.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallArchive, tempDir } from './helpers.js';
import { childrenOf, cli, serveProcesses, until, type Serving } from './support/serving.js';

const COUNT = 300;
const servers: Serving[] = [];
let first: string;
let other: string;
let folder: string;

beforeAll(async () => {
  first = await smallArchive(60, 11);
  other = await smallArchive(60, 12);
  folder = tempDir('quarry-portal-folder-');
  // One generated archive copied under many names: hundreds of sources in a second.
  for (let i = 0; i < COUNT; i++) {
    const sub = join(folder, `group-${i % 4}`);
    mkdirSync(sub, { recursive: true });
    copyFileSync(first, join(sub, `set-${String(i).padStart(3, '0')}.aiida`));
  }
}, 60_000);

afterAll(() => {
  for (const s of servers) s.server.kill('SIGKILL');
});

const fetchJson = async (port: number, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

/** A GET's JSON on a connection of its own: each may go to the other serving process. */
const ownConnection = (port: number, path: string) =>
  new Promise<string>((resolve, reject) => {
    get(`http://127.0.0.1:${port}${path}`, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });

describe.skipIf(!existsSync(cli))('quarry serve FOLDER (built CLI)', () => {
  let port: number;
  let pid: number;
  let serving: Serving;

  beforeAll(async () => {
    serving = await serveProcesses(folder, 2, ['--watch-interval', '1', '--max-open', '8']);
    servers.push(serving);
    port = serving.port;
    pid = serving.server.pid!;
  }, 60_000);

  it('lists every source at /sources/, paged and filtered, without opening any', async () => {
    const all = await fetchJson(port, '/sources/?perpage=50&page=4');
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe(String(COUNT));
    const body = all.body as {
      sources: Record<string, unknown>[];
      total: number;
      page: number;
      perpage: number;
    };
    expect(body).toMatchObject({ total: COUNT, page: 4, perpage: 50 });
    expect(body.sources).toHaveLength(50);
    expect(body.sources[0]).toEqual({
      name: expect.stringMatching(/^set-\d{3}$/),
      kind: 'archive',
      api: `/${String(body.sources[0]!.name)}/api/v4`,
      explorer: `/${String(body.sources[0]!.name)}/`,
      optimade: `/${String(body.sources[0]!.name)}/optimade/v1`,
      nodes: null,
      aiida_version: null,
      export_version: null,
      open: false,
    });
    const some = await fetchJson(port, '/sources/?name=set-19');
    expect((some.body.sources as unknown[]).length).toBe(10);
    for (const bad of ['page=0', 'perpage=5000', 'page=x', 'colour=red', 'page=1&page=2']) {
      const refused = await fetchJson(port, `/sources/?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.message, bad).toEqual(expect.any(String));
    }
  });

  it(
    'answers each source at its own path, opening it on its first request',
    { timeout: 120_000 },
    async () => {
      const names = Array.from({ length: COUNT }, (_, i) => `set-${String(i).padStart(3, '0')}`);
      const failures: string[] = [];
      const work = [...names];
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (let name = work.shift(); name !== undefined; name = work.shift()) {
            const res = await fetchJson(port, `/${name}/api/v4/nodes/?limit=1`);
            const url = res.body.url as string;
            if (res.status !== 200 || url !== `http://127.0.0.1:${port}/${name}/api/v4/nodes/?limit=1`)
              failures.push(`${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          }
        }),
      );
      expect(failures).toEqual([]);
      // Two serving processes, and no more query processes than the shared ones (--workers, 2 each), not one
      // or two per source as each archive had of its own.
      const serving = childrenOf(pid);
      expect(serving).toHaveLength(2);
      expect(serving.flatMap(childrenOf).length).toBeLessThanOrEqual(4);
      // Concurrent first requests to one cold source: all answered.
      const cold = await Promise.all(
        Array.from({ length: 10 }, () => fetchJson(port, '/set-000/api/v4/nodes/?limit=2')),
      );
      expect(cold.map((r) => r.status)).toEqual(Array(10).fill(200));
      const ready = await fetchJson(port, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.catalog).toMatchObject({ total: COUNT });
      expect((ready.body.catalog as { open: number }).open).toBeLessThanOrEqual(8);
      expect((await fetchJson(port, '/readyz?source=set-007')).status).toBe(200);
      expect((await fetchJson(port, '/readyz?source=nope')).status).toBe(404);
    },
  );

  it(
    "answers OPTIMADE at each source's path, its side tables on the shared query processes",
    { timeout: 120_000 },
    async () => {
      const names = Array.from({ length: 12 }, (_, i) => `set-${String(i + 20).padStart(3, '0')}`);
      for (const name of names) {
        const url = `/${name}/optimade/v1/structures?page_limit=2&filter=${encodeURIComponent('nsites>0 OR nelements>0')}`;
        let res = await fetchJson(port, url);
        // A side table being built is a 503 with Retry-After; it is ready in a moment.
        for (let tries = 0; res.status === 503 && tries < 50; tries++) {
          await new Promise((r) => setTimeout(r, 200));
          res = await fetchJson(port, url);
        }
        expect(res.status, `${name}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
        expect((res.body.meta as { data_returned: number }).data_returned).toBeGreaterThanOrEqual(0);
      }
      // Twelve side tables asked, more than are kept open, and still only the shared query processes.
      expect(childrenOf(pid).flatMap(childrenOf).length).toBeLessThanOrEqual(4);
    },
  );

  it(
    'serves an added archive within 10 s, says a removed one is gone, and serves a replaced one anew',
    { timeout: 60_000 },
    async () => {
      copyFileSync(other, join(folder, 'added.aiida.part'));
      renameSync(join(folder, 'added.aiida.part'), join(folder, 'added.aiida'));
      const added = Date.now();
      let status = 0;
      while (status !== 200 && Date.now() - added < 10_000) {
        status = (await fetchJson(port, '/added/api/v4/nodes/?limit=1')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
      // Said once, not once per serving process; and the index says the same whichever process answers.
      expect(serving.stderr().split('quarry: source added added').length - 1).toBe(1);
      await new Promise((r) => setTimeout(r, 500));
      const index = await Promise.all(
        Array.from({ length: 8 }, () => ownConnection(port, '/sources/?name=added')),
      );
      expect(new Set(index).size, index.join('\n')).toBe(1);
      expect(JSON.parse(index[0]!).sources[0]).toMatchObject({ name: 'added', open: true, nodes: 60 });

      const before = (await fetchJson(port, '/set-001/api/v4/nodes/?limit=1&orderby=id')).body;
      // Replaced: another archive under the same name (a new export).
      copyFileSync(other, join(folder, 'group-1', 'set-001.aiida.part'));
      renameSync(join(folder, 'group-1', 'set-001.aiida.part'), join(folder, 'group-1', 'set-001.aiida'));
      const uuid = (b: Record<string, unknown>) => (b.data as { nodes: { uuid: string }[] }).nodes[0]!.uuid;
      let after = before;
      for (const end = Date.now() + 10_000; uuid(after) === uuid(before) && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 200));
        after = (await fetchJson(port, '/set-001/api/v4/nodes/?limit=1&orderby=id')).body;
      }
      expect(uuid(after)).not.toBe(uuid(before));

      unlinkSync(join(folder, 'group-2', 'set-002.aiida'));
      let gone = { status: 200, body: {} as Record<string, unknown> };
      for (const end = Date.now() + 10_000; gone.status !== 404 && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 200));
        gone = await fetchJson(port, '/set-002/api/v4/nodes/?limit=1');
      }
      expect(gone.status).toBe(404);
      expect(gone.body.message).toContain('"set-002" is no longer served');
    },
  );
});

describe.skipIf(!existsSync(cli))('quarry serve --sources FILE (built CLI)', () => {
  it('serves what the file names and reads it again on SIGHUP', { timeout: 60_000 }, async () => {
    const dir = tempDir('quarry-sources-file-');
    copyFileSync(first, join(dir, 'alpha.aiida'));
    copyFileSync(other, join(dir, 'beta.aiida'));
    const file = join(dir, 'portal.yaml');
    writeFileSync(file, 'sources:\n  - archive: alpha.aiida\n');
    const serving = await serveProcesses(`--sources=${file}`, 2);
    servers.push(serving);
    expect((await fetchJson(serving.port, '/alpha/api/v4/nodes/?limit=1')).status).toBe(200);
    expect((await fetchJson(serving.port, '/beta/api/v4/nodes/?limit=1')).status).toBe(404);
    writeFileSync(file, 'sources:\n  - archive: alpha.aiida\n  - name: second\n    archive: beta.aiida\n');
    serving.server.kill('SIGHUP');
    let status = 0;
    for (const end = Date.now() + 10_000; status !== 200 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await fetchJson(serving.port, '/second/api/v4/nodes/?limit=1')).status;
    }
    expect(status).toBe(200);
    // Both serving processes read it again: every request finds it.
    const again = await Promise.all(
      Array.from({ length: 8 }, () => fetchJson(serving.port, '/second/api/v4/server/')),
    );
    expect(again.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(serving.stderr()).toContain('source second added');
  });

  it(
    'refuses a path that is not there, at start and on SIGHUP, in one line',
    { timeout: 60_000 },
    async () => {
      const dir = tempDir('quarry-sources-typo-');
      copyFileSync(first, join(dir, 'alpha.aiida'));
      const file = join(dir, 'portal.yaml');
      writeFileSync(file, 'sources:\n  - archive: alpha.aiida\n  - archive: nonexistent.aiida\n');
      const refused = spawnSync(
        process.execPath,
        [cli, 'serve', '--sources', file, '--processes', '1', '--port', '0', '--cache-dir', tempDir()],
        { encoding: 'utf8' },
      );
      expect(refused.status).toBe(1);
      expect(refused.stderr).toBe(
        `quarry: ${file}, source 2: ${join(dir, 'nonexistent.aiida')} does not exist\n`,
      );
      writeFileSync(file, 'sources:\n  - archive: alpha.aiida\n');
      const serving = await serveProcesses(`--sources=${file}`, 2);
      servers.push(serving);
      writeFileSync(file, 'sources:\n  - archive: alpha.aiida\n  - archive: nonexistent.aiida\n');
      serving.server.kill('SIGHUP');
      await until('the refusal', () =>
        /does not exist; the sources stay as they were/.test(serving.stderr()) ? true : undefined,
      );
      expect(serving.stderr()).not.toContain('source nonexistent added');
      expect((await fetchJson(serving.port, '/alpha/api/v4/nodes/?limit=1')).status).toBe(200);
      expect((await fetchJson(serving.port, '/nonexistent/api/v4/nodes/?limit=1')).status).toBe(404);
    },
  );

  it(
    "gives each source its own query_timeout, longer or shorter than the server's",
    { timeout: 60_000 },
    async () => {
      const dir = tempDir('quarry-sources-limits-');
      for (const name of ['quick', 'patient', 'plain']) copyFileSync(first, join(dir, `${name}.aiida`));
      const file = join(dir, 'portal.yaml');
      writeFileSync(
        file,
        [
          'sources:',
          '  - archive: quick.aiida',
          '    query_timeout: 0.5',
          '  - archive: patient.aiida',
          '    query_timeout: 4',
          '  - archive: plain.aiida',
          '',
        ].join('\n'),
      );
      const serving = await serveProcesses(`--sources=${file}`, 1, ['--query-timeout', '2']);
      servers.push(serving);
      const node = (tag: string) => ({
        entity_type: '',
        orm_base: 'node',
        tag,
        joining_keyword: 'with_user',
      });
      // Every five nodes of one user: hundreds of millions of rows, never answered within these limits.
      const endless = JSON.stringify({
        path: [
          { entity_type: 'user', orm_base: 'user', tag: 'u' },
          ...['a', 'b', 'c', 'd', 'e'].map((t) => ({ ...node(t), joining_value: 'u' })),
        ],
        project: { e: ['id'] },
      });
      const post = async (name: string) => {
        const started = Date.now();
        const res = await fetch(`http://127.0.0.1:${serving.port}/${name}/api/v4/querybuilder/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: endless,
        });
        const body = (await res.json()) as { message: string };
        return { status: res.status, message: body.message, ms: Date.now() - started };
      };
      // One after another: the same query asked at once of copies of one archive runs once (posted-answers.ts).
      const quick = await post('quick');
      const plain = await post('plain');
      const patient = await post('patient');
      for (const answer of [quick, patient, plain]) expect(answer.status).toBe(503);
      expect(quick.message).toContain('time limit of 0.5 s');
      expect(plain.message).toContain('time limit of 2 s');
      expect(patient.message).toContain('time limit of 4 s');
      // Stopped at its own limit, not at the server's shorter one.
      expect(patient.ms).toBeGreaterThanOrEqual(3_900);
    },
  );

  it('refuses at start two sources of one name, naming both, and a name that shadows a route', () => {
    const dir = tempDir('quarry-clash-');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    copyFileSync(first, join(dir, 'a', 'same.aiida'));
    copyFileSync(first, join(dir, 'b', 'same.aiida'));
    const run = spawnSync(
      process.execPath,
      [cli, 'serve', dir, '--port', '0', '--processes', '1', '--cache-dir', tempDir()],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `two sources are named "same": ${join(dir, 'a', 'same.aiida')} and ${join(dir, 'b', 'same.aiida')}`,
    );
    rmSync(join(dir, 'b'), { recursive: true });
    copyFileSync(first, join(dir, 'docs.aiida'));
    const shadow = spawnSync(
      process.execPath,
      [cli, 'serve', dir, '--port', '0', '--processes', '1', '--cache-dir', tempDir()],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(shadow.status).toBe(1);
    expect(shadow.stderr).toMatch(/docs\.aiida: the source name "docs" would shadow/);
  });
});

describe.skipIf(!existsSync(cli))('quarry prepare (built CLI)', () => {
  it(
    'extracts every archive ahead, so that the portal opens them without extracting',
    { timeout: 60_000 },
    async () => {
      const dir = tempDir('quarry-prepare-');
      const cacheDir = tempDir('quarry-prepare-cache-');
      for (const name of ['p1', 'p2', 'p3']) copyFileSync(first, join(dir, `${name}.aiida`));
      const prepared = spawnSync(process.execPath, [cli, 'prepare', dir, '--cache-dir', cacheDir], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(prepared.status).toBe(0);
      expect(prepared.stderr).toContain('100% (3/3');
      expect(prepared.stderr).toContain(`3 of 3 archives ready in ${cacheDir}`);
      const serving = await serveProcesses(dir, 1, ['--metrics', '--cache-dir', cacheDir]);
      servers.push(serving);
      for (const name of ['p1', 'p2', 'p3'])
        expect((await fetchJson(serving.port, `/${name}/api/v4/nodes/?limit=1`)).status).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${serving.port}/metrics`)).text();
      expect(metrics).toMatch(/^quarry_archive_extractions_total 0$/m);
      expect(metrics).toMatch(/^quarry_sources\{state="known"\} 3$/m);
      const nothing = spawnSync(process.execPath, [cli, 'prepare', tempDir()], { encoding: 'utf8' });
      expect(nothing.status).toBe(1);
      expect(nothing.stderr).toContain('no .aiida archive to prepare');
    },
  );
});
