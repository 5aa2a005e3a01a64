import { spawnSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
      const cacheDir = tempDir();
      try {
        const run = spawnSync(
          process.execPath,
          [cli, 'serve', archive, '--port', String(port), '--processes', '2', '--cache-dir', cacheDir],
          { encoding: 'utf8' },
        );
        expect(run.status).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(
          new RegExp(`^quarry: cannot listen on 127.0.0.1:${port}: the port is in use .*--port$`, 'm'),
        );
        // Said before anything was opened: the archive's database was not extracted.
        expect(readdirSync(cacheDir)).toEqual([]);
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

/** The built command's answer to `args`, run as a user would. */
const quarry = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env });

describe.skipIf(!existsSync(cli))('the command line of a first hour (built CLI)', () => {
  it('prints the help when no command is given, and serves nothing', () => {
    const run = quarry([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: quarry /);
    expect(run.stdout).toMatch(/serve \[options\]/);
    expect(run.stdout).toContain('`quarry serve` with no source serves a demo archive');
  });

  it('says a misspelt command is none, and which one was meant', () => {
    const run = quarry(['server', 'x.aiida']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe("quarry: 'server' is not a command; did you mean `quarry serve`?\n");
    expect(quarry(['x.aiida']).stderr).toBe(
      "quarry: 'x.aiida' is not a command; to serve it: quarry serve x.aiida\n",
    );
  });

  it('answers --cors with what Quarry does instead, and another unknown option with the option meant', () => {
    const cors = quarry(['serve', '--cors']);
    expect(cors.status).toBe(1);
    expect(cors.stderr).toMatch(
      /^quarry: there is no --cors: every answer already carries Access-Control-Allow-Origin: \*/,
    );
    expect(quarry(['serve', '--prot', '1']).stderr).toMatch(/Did you mean --port\?/);
  });

  it("prepares an archive named as a file, in one archive's words, and names a missing path in one line", async () => {
    const archive = await smallArchive(100, 5);
    const cacheDir = tempDir();
    const run = quarry(['prepare', archive, '--cache-dir', cacheDir]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`quarry: 1 of 1 archive ready in ${cacheDir}`);
    const junk = join(tempDir(), 'notes.aiida');
    writeFileSync(junk, 'text');
    const refused = quarry(['prepare', junk, '--cache-dir', cacheDir]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).not.toMatch(/ENOTDIR/);
    expect(refused.stderr).toMatch(/notes\.aiida is not a zip file/);
    expect(refused.stderr).toMatch(/quarry: 1 archive could not be prepared/);
    const missing = quarry(['prepare', join(cacheDir, 'nothing')]);
    expect(missing.stderr).toBe(`quarry: ${join(cacheDir, 'nothing')}: no such file or folder\n`);
  });

  it("takes verdi restapi's -H and -P", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const archive = await smallArchive(100, 5);
    const args = ['serve', archive, '-H', '127.0.0.1', '-P', String(port), '--processes', '1'];
    const server = spawn(process.execPath, [cli, ...args, '--cache-dir', tempDir()], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await until('the serving line', () =>
        /serving .* at http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr) ? true : undefined,
      );
      expect(stderr).toContain(`at http://127.0.0.1:${port}/api/v4/`);
      expect(await statusOf(`http://127.0.0.1:${port}/api/v4/server/`)).toBe(200);
    } finally {
      server.kill('SIGKILL');
    }
  });
});

describe.skipIf(!existsSync(cli) || process.platform !== 'linux')(
  'a server started by npm (built CLI)',
  () => {
    /**
     * The server under `sh -c`, as npm runs a command: the shell's pid, the server's, and its stderr. The shell
     * waits for it, as npm's does, and like it passes no SIGTERM on.
     */
    async function underShell(env: NodeJS.ProcessEnv) {
      const archive = await smallArchive(100, 5);
      const command = `"${process.execPath}" "${cli}" serve "${archive}" --port 0 --processes 2 --cache-dir "${tempDir()}" & echo $!; wait`;
      const shell = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], env });
      let stdout = '';
      let stderr = '';
      shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const pid = Number(await until('the server pid', () => /^(\d+)\n/.exec(stdout)?.[1]));
      await until('the serving line', () => (/serving .* \(2 processes\)/.test(stderr) ? true : undefined));
      return { shell, pid, serving: childrenOf(pid), stderr: () => stderr };
    }
    const alive = (pid: number) => existsSync(`/proc/${pid}`);

    it('stops with its serving processes when npm goes on a SIGTERM that reaches npm alone', async () => {
      const { shell, pid, serving, stderr } = await underShell({ ...process.env, npm_command: 'exec' });
      try {
        expect(serving).toHaveLength(2);
        shell.kill('SIGTERM');
        await until('the server to stop', () => (alive(pid) ? undefined : true));
        await until('its serving processes to stop', () => (serving.some(alive) ? undefined : true));
        expect(stderr()).toContain('quarry: npm, which started this server, has stopped; stopping too');
      } finally {
        for (const p of [pid, ...serving]) if (alive(p)) process.kill(p, 'SIGKILL');
      }
    });

    it('stays when started otherwise (nohup, a script that leaves it running)', async () => {
      const env = { ...process.env };
      delete env.npm_command;
      const { shell, pid, serving } = await underShell(env);
      try {
        shell.kill('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(alive(pid)).toBe(true);
      } finally {
        for (const p of [pid, ...serving]) if (alive(p)) process.kill(p, 'SIGKILL');
      }
    });
  },
);
