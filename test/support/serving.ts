/** The built `quarry serve` as a child process, for tests of what only real processes show. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { processTable } from '../../src/bench/process-table.js';
import { tempDir } from '../helpers.js';

export const cli = join(import.meta.dirname, '../../dist/cli/main.js');

/** The pids of a process's children. */
export function childrenOf(pid: number): number[] {
  return [...processTable()].filter(([, entry]) => entry.ppid === pid).map(([child]) => child);
}

export async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const value = probe();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Serving {
  server: ChildProcessWithoutNullStreams;
  port: number;
  /** Everything the server wrote on stderr so far. */
  stderr: () => string;
}

/**
 * `quarry serve ARCHIVE --processes N` on a free port of 127.0.0.1, once it says it serves; `entry` is the
 * command's script (the repository's build unless a test installed Quarry elsewhere).
 */
export async function serveProcesses(archive: string, processes: number, extra: string[] = [], entry = cli) {
  const server = spawn(
    process.execPath,
    [
      entry,
      'serve',
      archive,
      '--port',
      '0',
      '--processes',
      String(processes),
      '--cache-dir',
      tempDir(),
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  ) as unknown as ChildProcessWithoutNullStreams;
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const shown = processes > 1 ? ` \\(${processes} processes\\)` : '';
  const port = await until(
    'the serving line',
    // The API's address under any --prefix (`/api/v4/` by default).
    () => new RegExp(`:(\\d+)(?:/[^\\s/]+)+/${shown}`).exec(stderr)?.[1],
  ).catch((error: Error) => {
    server.kill('SIGKILL');
    throw error;
  });
  return { server, port: Number(port), stderr: () => stderr } satisfies Serving;
}
