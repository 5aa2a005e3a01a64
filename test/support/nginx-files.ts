/**
 * Debian's nginx serving the files of a folder on loopback, as a web server or object store serves archives:
 * ETag, Last-Modified and range requests, or, with `ranges: false`, `max_ranges 0;` (whole files only).
 * Stopped and started again on the same port, so a source can see its server go and come back.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, launchNginx, nginxInstalled, writeMainConfig } from '../../src/bench/nginx.js';

/**
 * Whether nginx is here for the tests that need it: they are skipped without it, unless CI requires it
 * (QUARRY_REQUIRE_NGINX=1), where its absence fails at once instead of passing by skipping.
 */
export function nginxForTests(): boolean {
  const installed = nginxInstalled();
  if (!installed && process.env.QUARRY_REQUIRE_NGINX === '1')
    throw new Error('QUARRY_REQUIRE_NGINX=1 but /usr/sbin/nginx is missing: npm run setup:system');
  return installed;
}

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
  writeMainConfig(
    dir,
    [
      '  default_type application/octet-stream;',
      `  server { listen 127.0.0.1:${port}; root ${root};`,
      options.ranges === false ? '    max_ranges 0;' : '',
      '  }',
    ],
    256,
  );
  let proc: ChildProcess | undefined;
  let errors = () => '';
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
    const launched = await launchNginx(dir, port);
    proc = launched.proc;
    errors = launched.errors;
  };
  await start();
  const server: FileServer = {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    stop,
    start,
    errors: () => errors(),
  };
  return server;
}
