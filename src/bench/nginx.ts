/**
 * Debian's nginx as a process of its own with docs/nginx-quarry.conf, on loopback: the documented configuration
 * with its ports and folders replaced, wrapped in a main configuration of its own (temp folders, pid, error log
 * in a temp dir). Used by test/ops-nginx.test.ts and the benchmark of instances behind nginx (behind-nginx.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NGINX = '/usr/sbin/nginx';
/** From src/bench and from dist/bench alike. */
export const DOCUMENTED_CONF = fileURLToPath(new URL('../../docs/nginx-quarry.conf', import.meta.url));

export function nginxInstalled(): boolean {
  return existsSync(NGINX);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The documented configuration for these upstream ports, listening on `port`, keeping its cache in `dir`. */
export function documentedConfig(port: number, upstreams: number[], cacheDir: string, cache = true): string {
  const text = readFileSync(DOCUMENTED_CONF, 'utf8');
  if (!/proxy_cache quarry;/.test(text))
    throw new Error(`${DOCUMENTED_CONF} no longer says proxy_cache quarry;`);
  const servers = /^(\s*)server 127\.0\.0\.1:5001 (.*)\n\s*server 127\.0\.0\.1:5002 .*\n/m;
  if (!servers.test(text) || !/listen 80;/.test(text) || !text.includes('/var/cache/nginx/quarry')) {
    throw new Error(`${DOCUMENTED_CONF} no longer has the lines this test replaces`);
  }
  return text
    .replace(servers, (_all, indent: string, rest: string) =>
      upstreams.map((p) => `${indent}server 127.0.0.1:${p} ${rest}\n`).join(''),
    )
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replaceAll('/var/cache/nginx/quarry', cacheDir)
    .replace('proxy_cache quarry;', cache ? 'proxy_cache quarry;' : 'proxy_cache off;');
}

export interface RunningNginx {
  port: number;
  proc: ChildProcess;
  errors: () => string;
  stop: () => Promise<void>;
}

/**
 * nginx's main configuration in `dir`: its temp folders, pid and error log there, `http` holding `httpLines`.
 * Run as root (CI containers), workers would be `nobody` and could not write the temp folders: so they run as
 * root too.
 */
export function writeMainConfig(dir: string, httpLines: string[], connections = 512) {
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, sub), { recursive: true });
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `  ${kind}_temp_path ${join(dir, kind === 'client_body' ? 'body' : kind)};`)
    .join('\n');
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      process.getuid?.() === 0 ? 'user root root;' : '',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      `events { worker_connections ${connections}; }`,
      'http {',
      '  access_log off;',
      temps,
      ...httpLines,
      '}',
    ].join('\n'),
  );
}

/**
 * nginx started on the configuration of `dir` (writeMainConfig), once it accepts connections on `port`; an exit
 * first is a configuration it refused, and one that does not listen within 10 s is stopped.
 */
export async function launchNginx(
  dir: string,
  port: number,
): Promise<{ proc: ChildProcess; errors: () => string }> {
  const proc = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const errors = () =>
    stderr + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${errors()}`);
    if (await accepts(port)) return { proc, errors };
    if (Date.now() > end) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
      throw new Error(`nginx did not listen on ${port}: ${errors()}`);
    }
  }
}

/** nginx in front of `upstreams` (ports on 127.0.0.1), its files in `dir`; `cache: false` turns proxy_cache off. */
export async function startNginx(dir: string, upstreams: number[], cache = true): Promise<RunningNginx> {
  const port = await freePort();
  mkdirSync(join(dir, 'cache'), { recursive: true });
  writeFileSync(join(dir, 'quarry.conf'), documentedConfig(port, upstreams, join(dir, 'cache'), cache));
  writeMainConfig(dir, [`  include ${join(dir, 'quarry.conf')};`]);
  const { proc, errors } = await launchNginx(dir, port);
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGQUIT');
    await exited;
  };
  return { port, proc, errors, stop };
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
