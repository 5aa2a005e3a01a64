import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli/errors.js';
import { runServe } from '../src/cli/serve.js';
import { smallArchive, tempDir } from './helpers.js';
import { childrenOf, cli, serveProcesses, until } from './support/serving.js';

describe('quarry serve', () => {
  it('refuses a file that is not an archive with a one-line CliError', async () => {
    const junk = join(tempDir(), 'notes.aiida');
    writeFileSync(junk, 'just text');
    const options = { host: '127.0.0.1', port: 0, prefix: '/api/v4', posting: true, cacheDir: tempDir() };
    await expect(runServe([junk], options)).rejects.toBeInstanceOf(CliError);
    await expect(runServe([junk], options)).rejects.toThrow(/^[^\n]*not a zip[^\n]*$/);
  });

  it.skipIf(!existsSync(cli))('exits non-zero without a stack trace (built CLI)', () => {
    const junk = join(tempDir(), 'old.aiida');
    writeFileSync(junk, Buffer.alloc(100));
    const run = spawnSync(process.execPath, [cli, 'serve', junk, '--port', '0'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^quarry: .*old\.aiida/);
  });
});

describe('quarry serve, live profiles', () => {
  const options = { host: '127.0.0.1', port: 0, prefix: '/api/v4', posting: true, cacheDir: tempDir() };

  it('asks for the repository of a postgres:// source', async () => {
    await expect(runServe(['postgres://aiida@127.0.0.1:1/db'], options)).rejects.toThrow(/--repository/);
  });

  it('refuses a folder that is not a core.sqlite_dos storage', async () => {
    await expect(runServe([tempDir()], options)).rejects.toThrow(/not a core.sqlite_dos storage folder/);
  });

  it('names the profiles of the configuration when the asked one is missing', async () => {
    const aiida = tempDir();
    mkdirSync(join(aiida, '.aiida'));
    writeFileSync(join(aiida, '.aiida', 'config.json'), JSON.stringify({ profiles: { main: {}, test: {} } }));
    process.env.AIIDA_PATH = aiida;
    try {
      await expect(runServe([], { ...options, profile: ['other'] })).rejects.toThrow(/profiles: main, test/);
    } finally {
      delete process.env.AIIDA_PATH;
    }
  });
});

/** The status of a GET on a connection of its own (a pooled one may belong to a process that was killed). */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject);
  });
}

describe.skipIf(!existsSync(cli) || process.platform !== 'linux')(
  'quarry serve --processes (built CLI)',
  () => {
    it('serves from every process, replaces one that dies, and stops them all on SIGTERM', async () => {
      const archive = await smallArchive(200, 3);
      const { server, port, stderr } = await serveProcesses(archive, 2);
      try {
        const url = `http://127.0.0.1:${port}/api/v4/nodes/?limit=1`;
        expect(await statusOf(url)).toBe(200);
        const serving = childrenOf(server.pid!);
        expect(serving).toHaveLength(2);
        // A smaller young generation keeps each serving process 25 to 35 MB smaller, and collecting in the
        // serving thread leaves the other cores to the other serving processes, and without V8's memory reducer
        // a quiet spell does not throw away their optimized code (src/cli/processes.ts).
        for (const pid of serving) {
          const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          expect(args).toContain('--max-semi-space-size=4');
          expect(args).toContain('--single-threaded-gc');
          expect(args).toContain('--no-memory-reducer');
        }

        process.kill(serving[0]!, 'SIGKILL');
        const replaced = await until('a replacement', () => {
          const now = childrenOf(server.pid!);
          return now.length === 2 && !now.includes(serving[0]!) ? now : undefined;
        });
        expect(replaced).toContain(serving[1]);
        for (let i = 0; i < 10; i++) expect(await statusOf(url)).toBe(200);
        expect(stderr()).toMatch(
          new RegExp(`serving process ${serving[0]} died \\(SIGKILL\\); starting another`),
        );

        const exit = new Promise<number | null>((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        expect(await exit).toBe(0);
        expect(replaced.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
      } finally {
        server.kill('SIGKILL');
      }
    });

    it('refuses in one line, exit 1, when the serving processes cannot listen', async () => {
      const archive = await smallArchive(100, 3);
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const port = (busy.address() as AddressInfo).port;
      try {
        const run = spawnSync(
          process.execPath,
          [cli, 'serve', archive, '--port', String(port), '--processes', '2', '--cache-dir', tempDir()],
          { encoding: 'utf8' },
        );
        expect(run.status).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(new RegExp(`^quarry: cannot listen on 127.0.0.1:${port}`));
      } finally {
        busy.close();
      }
    });
  },
);

describe.skipIf(!existsSync(cli))('quarry serve --public-url, --trust-proxy (built CLI)', () => {
  /** The `url_root` of an answer to a request with these headers. */
  function urlRoot(port: number, headers: Record<string, string>): Promise<string> {
    return new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${port}/api/v4/server/`, { agent: false, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(body).url_root));
      }).on('error', reject);
    });
  }

  it('writes the public URL into answers, or the forwarded host behind a trusted proxy', async () => {
    const archive = await smallArchive(100, 3);
    const forwarded = { 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' };
    for (const [extra, expected] of [
      [['--public-url', 'https://data.example.org/quarry/'], 'https://data.example.org/quarry/'],
      [['--trust-proxy'], 'https://public.example/'],
      [[], 'http://internal:1/'],
    ] as const) {
      const { server, port, stderr } = await serveProcesses(archive, 1, [...extra]);
      try {
        expect(await urlRoot(port, { host: 'internal:1', ...forwarded })).toBe(expected);
        if (extra[0] === '--public-url') {
          expect(stderr()).toContain('published as https://data.example.org/quarry/api/v4/');
        }
      } finally {
        server.kill('SIGTERM');
      }
    }
  });

  it('refuses a --public-url that is not a base URL, in one line', () => {
    const run = spawnSync(process.execPath, [cli, 'serve', '--public-url', 'example.org'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--public-url .*absolute URL/);
  });
});
