/**
 * Debian's nginx serving the files of a folder on loopback, as a web server or object store serves archives:
 * ETag, Last-Modified and range requests, or, with `ranges: false`, `max_ranges 0;` (whole files only).
 * Stopped and started again on the same port, so a source can see its server go and come back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, NGINX } from '../../src/bench/nginx.js';

export interface FileServer {
  port: number;
  /** The URL of a file of the folder. */
  url(name: string): string;
  /** Stops nginx (waits for it to exit); start() brings it back on the same port (nothing if it runs). */
  stop(): Promise<void>;
  start(): Promise<void>;
  errors(): string;
}

export async function serveFiles(root: string, dir: string, options: { ranges?: boolean } = {}) {
  const port = await freePort();
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
      'events { worker_connections 256; }',
      'http {',
      '  access_log off;',
      '  default_type application/octet-stream;',
      temps,
      `  server { listen 127.0.0.1:${port}; root ${root};`,
      options.ranges === false ? '    max_ranges 0;' : '',
      '  }',
      '}',
    ].join('\n'),
  );
  let proc: ChildProcess | undefined;
  let stderr = '';
  const errors = () =>
    stderr + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  const stop = async () => {
    const running = proc;
    proc = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  const start = async () => {
    if (proc !== undefined && proc.exitCode === null) return;
    const child = spawn(
      NGINX,
      ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    proc = child;
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${errors()}`);
      if (await accepts(port)) return;
      if (Date.now() > end) {
        await stop();
        throw new Error(`nginx did not listen on ${port}: ${errors()}`);
      }
    }
  };
  await start();
  const server: FileServer = {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    stop,
    start,
    errors,
  };
  return server;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
