/**
 * A portal of many archives served by the built CLI under a low open-file limit (`ulimit -n` in the child's
 * shell), and what the tests of its bounds read of its serving processes: open files (/proc/<pid>/fd) and
 * resident memory (/proc/<pid>/status).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';
import { childrenOf, cli, until, type Serving } from './serving.js';

/** `count` copies of `archive` in a new folder, four subfolders deep: a portal's folder in a second. */
export function portalFolder(archive: string, count: number): string {
  const folder = tempDir('quarry-bounded-portal-');
  for (let i = 0; i < count; i++) {
    const sub = join(folder, `group-${i % 4}`);
    mkdirSync(sub, { recursive: true });
    copyFileSync(archive, join(sub, `set-${String(i).padStart(3, '0')}.aiida`));
  }
  return folder;
}

/** `quarry serve ARGS` with the open-file limit at `nofile`, once it says where it listens. */
export async function serveLimited(nofile: number, args: string[]): Promise<Serving> {
  const command = ['ulimit -n "$1"; shift; exec "$@"'];
  const server = spawn(
    'bash',
    [
      '-c',
      ...command,
      'bash',
      String(nofile),
      process.execPath,
      cli,
      'serve',
      ...args,
      '--port',
      '0',
      '--cache-dir',
      tempDir(),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  ) as unknown as ChildProcessWithoutNullStreams;
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await until(
    'the serving line',
    () => /:(\d+)(?:\/[^\s/]+)+\//.exec(stderr)?.[1],
    30_000,
  ).catch((error: Error) => {
    server.kill('SIGKILL');
    throw new Error(`${error.message}: ${stderr.slice(-2000)}`);
  });
  return { server, port: Number(port), stderr: () => stderr };
}

/** The processes that answer HTTP: the serving processes of a supervisor, or the one process itself. */
export function servingPids(serving: Serving): number[] {
  const pid = serving.server.pid!;
  const children = childrenOf(pid);
  return children.length > 0 ? children : [pid];
}

export function openFiles(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Resident memory in MB. */
export function residentMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}
