/**
 * `behind-nginx INSTANCES FILE [--no-cache]`: INSTANCES Quarry servers of FILE (one process each, as
 * serve-bench.js) behind Debian's nginx with the documented configuration (docs/nginx-quarry.conf), on loopback.
 * Prints `ready <port>` (nginx's) and runs until a signal; measure it with `npm run bench -- --target URL`
 * (docs/deploy.md). `--no-cache` turns proxy_cache off, so that every request reaches an instance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNginx } from './nginx.js';

const [count, file, flag] = process.argv.slice(2);
if (!file || !Number.isInteger(Number(count)) || Number(count) < 1) {
  throw new Error('usage: behind-nginx INSTANCES FILE.aiida [--no-cache]');
}

function instance(): Promise<{ proc: ChildProcess; port: number }> {
  const script = fileURLToPath(new URL('serve-bench.js', import.meta.url));
  const proc = spawn(process.execPath, [script, '1', file!], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout?.on('data', (chunk: Buffer) => {
      const m = /ready (\d+)/.exec(chunk.toString());
      if (m) resolve({ proc, port: Number(m[1]) });
    });
    proc.once('exit', (code) => reject(new Error(`a Quarry instance exited with ${code}`)));
  });
}

const instances = await Promise.all(Array.from({ length: Number(count) }, instance));
const nginx = await startNginx(
  mkdtempSync(join(tmpdir(), 'quarry-bench-nginx-')),
  instances.map((i) => i.port),
  flag !== '--no-cache',
);
process.stdout.write(`ready ${nginx.port}\n`);
const stop = async () => {
  await nginx.stop();
  for (const i of instances) i.proc.kill();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
