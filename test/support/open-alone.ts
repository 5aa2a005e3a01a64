/**
 * An archive opened (and so converted) in a process of its own, for its peak memory alone: open-alone-child.ts
 * run through vite-node, which prints one JSON line: the time the open took, the process's peak RSS
 * before and after, and the refusal's message (or "served").
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Alone {
  ms: number;
  /** Peak RSS of the process before the open (its own start), and at its end, in bytes. */
  before: number;
  peak: number;
  message: string;
  warnings: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
const VITE_NODE = resolve(here, '../../node_modules/vite-node/vite-node.mjs');

/** Opens `file` with the cache folder `cacheDir` in a process of its own; `onStart` gets its pid. */
export function openAlone(file: string, cacheDir: string, onStart?: (pid: number) => void): Promise<Alone> {
  return new Promise((ok, ko) => {
    const child = spawn(process.execPath, [VITE_NODE, join(here, 'open-alone-child.ts'), file, cacheDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onStart?.(child.pid!);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code, signal) => {
      const line = out.split('\n').find((l) => l.startsWith('{"ms"'));
      if (code === 0 && line) ok(JSON.parse(line) as Alone);
      else ko(new Error(`the open ended with ${signal ?? code}: ${err.slice(-2000)}`));
    });
  });
}
