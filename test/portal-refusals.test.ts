/**
 * What a running portal refuses, as real processes: a file dropped beside a served one under the same name
 * (either case, either order) is refused and the served one keeps its name; a sources file that is not a file
 * of sources (a FIFO, /dev/zero, a folder, past 16 MB, values out of range, a name of megabytes, hundreds of
 * thousands of entries) stops the start in one line, and on SIGHUP leaves the sources as they were while
 * requests go on being answered, within bounds of time and memory.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallArchive, tempDir } from './helpers.js';
import { residentMb } from './support/bounded-portal.js';
import { cli, serveProcesses, until, type Serving } from './support/serving.js';

const servers: Serving[] = [];
afterAll(() => {
  for (const s of servers) s.server.kill('SIGKILL');
});

let archive: string;
beforeAll(async () => {
  archive = await smallArchive(40, 31);
}, 60_000);

const status = async (port: number, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  await res.arrayBuffer();
  return res.status;
};

describe.skipIf(!existsSync(cli))('names served stay with their sources (built CLI)', () => {
  it(
    'refuses RICH.aiida beside rich.aiida and other.aiida beside Other.aiida, naming both, until the name is free',
    { timeout: 90_000 },
    async () => {
      const folder = tempDir('quarry-names-folder-');
      copyFileSync(archive, join(folder, 'rich.aiida'));
      copyFileSync(archive, join(folder, 'Other.aiida'));
      const serving = await serveProcesses(folder, 1, ['--watch-interval', '1']);
      servers.push(serving);
      const { port } = serving;
      const list = '/api/v4/nodes/page/1?perpage=1';
      expect(await status(port, `/rich${list}`)).toBe(200);
      // A newcomer sorting before the served one (RICH < rich) and one sorting after it (other > Other).
      copyFileSync(archive, join(folder, 'RICH.aiida'));
      copyFileSync(archive, join(folder, 'other.aiida'));
      const warned = (file: string, held: string) =>
        serving
          .stderr()
          .split('\n')
          .filter(
            (l) => l.includes(join(folder, file)) && l.includes(join(folder, held)) && /not served/.test(l),
          );
      await until('both warnings', () =>
        warned('RICH.aiida', 'rich.aiida').length > 0 && warned('other.aiida', 'Other.aiida').length > 0
          ? true
          : undefined,
      );
      // A few more looks at the folder: still one line each, and nothing removed or replaced.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(warned('RICH.aiida', 'rich.aiida')).toHaveLength(1);
      expect(warned('other.aiida', 'Other.aiida')).toHaveLength(1);
      expect(serving.stderr()).not.toMatch(/removed|replaced/);
      expect(await status(port, `/rich${list}`)).toBe(200);
      expect(await status(port, `/Other${list}`)).toBe(200);
      expect(await status(port, `/RICH${list}`)).toBe(404);
      expect(await status(port, `/other${list}`)).toBe(404);
      // The name freed: the newcomer is served under it.
      rmSync(join(folder, 'rich.aiida'));
      await until('RICH served', () => (/source RICH added/.test(serving.stderr()) ? true : undefined));
      expect(await status(port, `/RICH${list}`)).toBe(200);
      serving.server.kill('SIGTERM');
    },
  );
});

/** Each hostile sources file, made at `path` (which may hold another file before). */
const hostile: [string, (path: string) => void, RegExp][] = [
  ['a FIFO', (path) => execFileSync('mkfifo', [path]), /is a FIFO, not a regular file/],
  ['/dev/zero', (path) => symlinkSync('/dev/zero', path), /is a device or socket, not a regular file/],
  ['a folder', (path) => mkdirSync(path), /is a folder, not a regular file/],
  [
    'a file of 17 MB',
    (path) => {
      writeFileSync(path, 'sources:\n');
      truncateSync(path, 17 << 20);
    },
    /at most 16 MB/,
  ],
  [
    'query_timeout .inf',
    (path) => writeFileSync(path, 'sources:\n  - archive: a.aiida\n    query_timeout: .inf\n'),
    /source 1: query_timeout must be/,
  ],
  [
    'query_timeout 1e308',
    (path) => writeFileSync(path, 'sources:\n  - archive: a.aiida\n    query_timeout: 1e308\n'),
    /source 1: query_timeout must be/,
  ],
  [
    'a negative query_timeout',
    (path) => writeFileSync(path, 'sources:\n  - archive: a.aiida\n    query_timeout: -1\n'),
    /source 1: query_timeout must be/,
  ],
  [
    'a name of 10 MB',
    (path) => writeFileSync(path, `sources:\n  - archive: a.aiida\n    name: ${'n'.repeat(10 << 20)}\n`),
    /source 1: name is 10485760 characters long/,
  ],
  [
    '230,000 entries (10 MB)',
    (path) => {
      const lines = ['sources:'];
      for (let i = 0; i < 230_000; i++)
        lines.push(`  - archive: /nowhere/x${String(i).padStart(6, '0')}.aiida`);
      writeFileSync(path, `${lines.join('\n')}\n`);
    },
    /names 230000 sources; a sources file names at most 100000|needs more than 256 MB to read|took longer than/,
  ],
];

/** Seconds a refusal may take: reading is bounded at 30 s, and the machine of a test run is shared. */
const REFUSED_WITHIN_MS = 35_000;
/** Memory a reading may add to a process: the reader's bounded heap (256 MB) and what it hands back. */
const READ_MB = 400;

describe.skipIf(!existsSync(cli))('a sources file that is not a file of sources (built CLI)', () => {
  it('stops the start in one line, in bounded time and memory', { timeout: 240_000 }, async () => {
    const dir = tempDir('quarry-hostile-start-');
    const measured: object[] = [];
    for (const [what, make, message] of hostile) {
      const path = join(dir, `${what.replace(/\W+/g, '-')}.yaml`);
      make(path);
      const started = Date.now();
      const child = spawn(
        process.execPath,
        [cli, 'serve', '--sources', path, '--processes', '1', '--port', '0', '--cache-dir', tempDir()],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      let mostMb = 0;
      const sampler = setInterval(() => (mostMb = Math.max(mostMb, residentMb(child.pid!))), 50);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearInterval(sampler);
      const lines = stderr.trim().split('\n');
      expect(code, what).toBe(1);
      expect(lines, what).toHaveLength(1);
      expect(lines[0], what).toMatch(message);
      expect(lines[0]!.length, what).toBeLessThan(500);
      expect(Date.now() - started, what).toBeLessThan(REFUSED_WITHIN_MS);
      expect(mostMb, what).toBeLessThan(100 + READ_MB);
      measured.push({ what, ms: Date.now() - started, mostMb: Math.round(mostMb) });
    }
    console.log(JSON.stringify({ atStart: measured }));
  });

  it(
    'on SIGHUP leaves the sources as they were and answers requests meanwhile, in bounded time and memory',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('quarry-hostile-hup-');
      copyFileSync(archive, join(dir, 'a.aiida'));
      const file = join(dir, 'sources.yaml');
      const good = 'sources:\n  - archive: a.aiida\n    name: first\n';
      writeFileSync(file, good);
      const serving = await serveProcesses(`--sources=${file}`, 1);
      servers.push(serving);
      const { port } = serving;
      const list = '/first/api/v4/nodes/page/1?perpage=1';
      expect(await status(port, list)).toBe(200);
      const pid = serving.server.pid!;
      const before = residentMb(pid);
      const measured: object[] = [];
      for (const [what, make, message] of hostile) {
        rmSync(file, { recursive: true, force: true });
        make(file);
        const seen = serving.stderr().length;
        const started = Date.now();
        serving.server.kill('SIGHUP');
        // Requests go on while the file is read: each answered 200, none held up by the reading.
        let slowest = 0;
        let mostMb = 0;
        const answers: number[] = [];
        let refused: string | undefined;
        while (refused === undefined && Date.now() - started < REFUSED_WITHIN_MS) {
          const asked = Date.now();
          answers.push(await status(port, list));
          slowest = Math.max(slowest, Date.now() - asked);
          mostMb = Math.max(mostMb, residentMb(pid));
          refused = serving
            .stderr()
            .slice(seen)
            .split('\n')
            .find((l) => /the sources stay as they were/.test(l));
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(refused, what).toMatch(message);
        expect(refused!.length, what).toBeLessThan(500);
        expect(new Set(answers), what).toEqual(new Set([200]));
        expect(slowest, what).toBeLessThan(2_000);
        expect(mostMb - before, what).toBeLessThan(READ_MB);
        measured.push({ what, ms: Date.now() - started, slowest, addedMb: Math.round(mostMb - before) });
      }
      console.log(JSON.stringify({ onSighup: measured }));
      expect(serving.stderr()).not.toMatch(/source first removed/);
      // A good file again: read on the next SIGHUP.
      rmSync(file, { recursive: true, force: true });
      writeFileSync(file, `${good}  - archive: a.aiida\n    name: second\n`);
      serving.server.kill('SIGHUP');
      await until('the second source', () =>
        /source second added/.test(serving.stderr()) ? true : undefined,
      );
      expect(await status(port, '/second/api/v4/nodes/page/1?perpage=1')).toBe(200);
      serving.server.kill('SIGTERM');
    },
  );
});
