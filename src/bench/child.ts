/** The benchmark's server processes: a Node script started as a child that prints `ready <port>` once listening. */
import { spawn, type ChildProcess } from 'node:child_process';

/** How long a benchmark server may take to say it is ready: past this, the run fails instead of hanging. */
const SERVER_START_MS = 120_000;

/** A child process running `script` with `args`, resolved once it prints `ready <port>`. */
export function child(args: string[]): Promise<{ proc: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`benchmark server ${args[0]} did not start within ${SERVER_START_MS / 1000} s`));
    }, SERVER_START_MS);
    proc.stdout?.on('data', (chunk: Buffer) => {
      const m = /ready (\d+)/.exec(chunk.toString());
      if (!m) return;
      clearTimeout(timer);
      resolve({ proc, port: Number(m[1]) });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`benchmark server exited with ${code}`));
    });
  });
}
