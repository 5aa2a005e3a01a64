/**
 * `npm run bench -- --side-by-side`: the same data served as an archive, as a core.sqlite_dos profile and as a
 * PostgreSQL profile, one after another on the same machine, each kind of request driven at the same number of
 * clients. It gives the rows of the storages' comparison in docs/performance.md (single node, a page by
 * -ctime, links, contents, a posted join asked again and never asked before, the explorer's grid never asked
 * before), each storage's rate against the archive's in the same run, the load average at each cell, and the
 * memory (RSS and PSS) of all the server's processes idle and after the load.
 *
 * The data is the conformance data of the repository (test/fixtures/conformance/data: rich.aiida and its
 * container), or `--data ARCHIVE` with `--container TARBALL`. `--server-dist DIR` serves with another build of
 * Quarry (its dist/ folder), so that the figures of another version are measured by the same harness.
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openArchive } from '../storage/index.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import { BENCH_KEPT_FILE } from './backend.js';
import { child } from './child.js';
import type { DriveJob } from './drive.js';
import { runDrive } from './drive-client.js';
import {
  freshAsked,
  freshJob,
  JOIN_QUERY,
  NEVER_ASKED,
  NEVER_ASKED_ROUNDS,
  neverAskedLines,
  neverAskedRatios,
  type NeverAsked,
  type NeverAskedRow,
} from './never-asked.js';
import { loadedCluster } from './pg-scale.js';
import { loadAverage, processTree, treeCpuMs } from './process-table.js';

export interface SideBySideOptions {
  archive: string;
  container: string;
  processes: number;
  connections: number;
  duration: number;
  serverDist?: string;
  out: string;
  /** Measurements of each cell (in turned orders); the best is kept. */
  rounds: number;
  /** Only the kinds whose name holds this text (the never-asked ratios are measured whatever it says). */
  only?: string;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const REPO = join(here, '..', '..');

/** The conformance data of the repository: the default data of the side-by-side run. */
export const CONFORMANCE_DATA = {
  archive: join(REPO, 'test', 'fixtures', 'conformance', 'data', 'rich.aiida'),
  container: join(REPO, 'test', 'fixtures', 'conformance', 'data', 'rich-container-packed.tar.gz'),
};

interface Kind {
  name: string;
  method: 'GET' | 'POST';
  paths: string[];
  body?: unknown;
  /** Each request a body never posted before, made so. */
  fresh?: NeverAsked;
}

/** How long after the load memory is measured again: two of the serving processes' quiet checks and more. */
const QUIET_WAIT_MS = 15_000;

export interface TreeMemory {
  rssMb: number;
  pssMb: number;
  /** Of the PSS: the processes' own memory (heaps), and pages of mapped files (kept answers, archive copies). */
  anonMb: number;
  fileMb: number;
  processes: number;
}

/** Memory of a process tree from /proc: resident and proportional (shared pages divided among their users). */
export function treeMemory(pid: number): TreeMemory {
  const kb = { Rss: 0, Pss: 0, Pss_Anon: 0, Pss_File: 0, Pss_Shmem: 0 };
  const tree = processTree(pid);
  for (const p of tree) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      for (const name of Object.keys(kb) as (keyof typeof kb)[])
        kb[name] += Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    } catch {
      // Ended while read.
    }
  }
  const mb = (k: number) => Math.round(k / 1024);
  return {
    rssMb: mb(kb.Rss),
    pssMb: mb(kb.Pss),
    anonMb: mb(kb.Pss_Anon),
    fileMb: mb(kb.Pss_File + kb.Pss_Shmem),
    processes: tree.size,
  };
}

async function post(base: string, body: unknown): Promise<Record<string, { uuid: string }[]>> {
  const r = await fetch(`${base}/api/v4/querybuilder/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 200) throw new Error(`sampling the data: ${r.status} ${(await r.text()).slice(0, 200)}`);
  return ((await r.json()) as { data: Record<string, { uuid: string }[]> }).data;
}

/** The kinds of the comparison, with nodes of the served data (the same on every storage). */
async function kinds(base: string): Promise<Kind[]> {
  const some = async (type: string) =>
    (
      await post(base, {
        path: [{ entity_type: type, orm_base: 'node', tag: 'n' }],
        project: { n: ['uuid'] },
        order_by: [{ n: [{ id: { order: 'asc' } }] }],
        limit: 64,
      })
    ).n!.map((n) => n.uuid);
  const nodes = await some('');
  const calcs = await some('process.calculation.calcjob.CalcJobNode.');
  const api = (p: string) => `/api/v4${p}`;
  return [
    { name: 'single node', method: 'GET', paths: nodes.map((u) => api(`/nodes/${u}/`)) },
    {
      name: 'page of 20 nodes by -ctime',
      method: 'GET',
      paths: Array.from({ length: 10 }, (_, i) => api(`/nodes/page/${i + 1}/?perpage=20&orderby=-ctime`)),
    },
    { name: 'links incoming', method: 'GET', paths: calcs.map((u) => api(`/nodes/${u}/links/incoming/`)) },
    {
      name: 'node attributes',
      method: 'GET',
      paths: nodes.map((u) => api(`/nodes/${u}/contents/attributes/`)),
    },
    {
      name: 'posted join, 20 rows, the same body again',
      method: 'POST',
      paths: [api('/querybuilder/')],
      body: JOIN_QUERY,
    },
    ...NEVER_ASKED.map((query) => ({
      name: `${query.name}, never posted before`,
      method: 'POST' as const,
      paths: [api('/querybuilder/')],
      body: query.body,
      fresh: query,
    })),
  ];
}

interface Cell {
  storage: string;
  /** CPU time of all the server's processes per answer (less disturbed by other work than the rate). */
  cpuUs: number;
  kind: string;
  rps: number;
  p99: number;
  errors: number;
  load: string;
}

interface Served {
  storage: string;
  args: string[];
}

interface Running extends Served {
  base: string;
  pid: number;
  stop(): Promise<void>;
  idle: TreeMemory;
}

async function start(served: Served, options: SideBySideOptions, temp: string): Promise<Running> {
  const dist = options.serverDist ?? join(here, '..');
  process.env[BENCH_KEPT_FILE] = join(temp, `kept-${served.storage}.sqlite`);
  const { proc, port } = await child([
    join(dist, 'bench', 'serve-bench.js'),
    String(options.processes),
    ...served.args,
  ]);
  await new Promise((r) => setTimeout(r, 2_000));
  return {
    ...served,
    base: `http://127.0.0.1:${port}`,
    pid: proc.pid!,
    idle: treeMemory(proc.pid!),
    stop: async () => {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Each kind on each storage in turn, so that the storages' figures of a kind are measured minutes apart at
 * most, under the same load from elsewhere; `rounds` times, in turned orders, the best of each kept.
 */
async function measure(running: Running[], options: SideBySideOptions, cells: Cell[]) {
  const all = (await kinds(running[0]!.base)).filter(
    (k) => options.only === undefined || k.name.includes(options.only),
  );
  for (const kind of all) {
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? running : [...running].reverse();
      for (const server of order) {
        const job = (duration: number): DriveJob => ({
          url: server.base,
          name: kind.name,
          method: kind.method,
          paths: kind.paths,
          body: kind.body === undefined ? undefined : JSON.stringify(kind.body),
          connections: options.connections,
          duration,
          ...(kind.fresh ? freshJob(server.base, kind.fresh) : {}),
        });
        // Unmeasured first: every variant asked once (what a repeated request is), the plans compiled.
        const warm = await runDrive(job(1));
        if (kind.fresh) freshAsked(server.base, kind.fresh, warm.nextLimit);
        const cpuBefore = treeCpuMs(server.pid);
        const result = await runDrive(job(options.duration));
        const cpuUs = result.total > 0 ? (1000 * (treeCpuMs(server.pid) - cpuBefore)) / result.total : 0;
        if (kind.fresh) freshAsked(server.base, kind.fresh, result.nextLimit);
        const load = loadAverage()[0]!;
        process.stderr.write(
          `${server.storage} | ${kind.name}: ${Math.round(result.rps)}/s (load ${load})\n`,
        );
        const cell = {
          cpuUs,
          storage: server.storage,
          kind: kind.name,
          rps: result.rps,
          p99: result.p99,
          errors: result.errors,
          load,
        };
        const known = cells.findIndex((c) => c.storage === cell.storage && c.kind === cell.kind);
        if (known === -1) cells.push(cell);
        else if (cells[known]!.rps < cell.rps) cells[known] = cell;
      }
    }
  }
}

/** A core.sqlite_dos folder of the archive's database and the container's tarball (one top folder). */
function sqliteDosFolder(databaseFile: string, tarball: string, into: string): string {
  const folder = join(into, 'sqlite_dos');
  mkdirSync(folder);
  writeFileSync(join(folder, 'database.sqlite'), readFileSync(databaseFile));
  const unpack = join(into, 'unpack');
  mkdirSync(unpack);
  execFileSync('tar', ['-xzf', tarball, '-C', unpack]);
  renameSync(join(unpack, readdirSync(unpack)[0]!), join(folder, 'container'));
  return folder;
}

export async function sideBySide(options: SideBySideOptions): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), 'quarry-side-'));
  const archive = await openArchive(options.archive);
  const dbFile = (archive.db as SqlitePool).file;
  const cells: Cell[] = [];
  const memory: object[] = [];
  const started = loadAverage();
  let cluster: Awaited<ReturnType<typeof loadedCluster>> | undefined;
  const running: Running[] = [];
  let neverAsked: NeverAskedRow[] = [];
  try {
    const folder = sqliteDosFolder(dbFile, options.container, temp);
    cluster = await loadedCluster(dbFile, (line) => process.stderr.write(`${line}\n`));
    await archive.close();
    for (const served of [
      { storage: 'archive', args: [options.archive] },
      { storage: 'core.sqlite_dos', args: [folder] },
      { storage: 'PostgreSQL', args: [options.archive, cluster.url] },
    ])
      running.push(await start(served, options, temp));
    await measure(running, options, cells);
    const afterLoad = running.map((server) => treeMemory(server.pid));
    // A serving process gives its load's memory back once quiet (src/util/idle-memory.ts collectWhenQuiet).
    await new Promise((r) => setTimeout(r, QUIET_WAIT_MS));
    running.forEach((server, i) =>
      memory.push({
        storage: server.storage,
        idle: server.idle,
        afterLoad: afterLoad[i],
        quiet: treeMemory(server.pid),
      }),
    );
    neverAsked = await neverAskedRatios(
      running.map((server) => ({
        storage: server.storage,
        base: server.base,
        pid: server.pid,
        open: server.args as [string, string?],
      })),
      options.processes,
      options.duration,
      Math.max(NEVER_ASKED_ROUNDS, options.rounds),
    );
  } finally {
    await Promise.all(running.map((server) => server.stop()));
    cluster?.cluster.destroy();
    rmSync(temp, { recursive: true, force: true });
  }
  const ended = loadAverage();
  const rate = (storage: string, kind: string) => cells.find((c) => c.storage === storage && c.kind === kind);
  const lines = [
    `${options.connections} clients, ${options.duration} s per cell (best of ${options.rounds}), ${options.processes} serving processes;` +
      ` load average ${started.join(' ')} at the start, ${ended.join(' ')} at the end`,
    '',
    'Each cell: requests a second, and CPU µs of all the server processes per answer; the ratio is of the rates' +
      ' (CPU: archive / PostgreSQL, above 1 when PostgreSQL costs less).',
    '',
    '| request | archive | core.sqlite_dos | PostgreSQL | PostgreSQL / archive, rate (CPU) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const kind of new Set(cells.map((c) => c.kind))) {
    const [a, s, p] = ['archive', 'core.sqlite_dos', 'PostgreSQL'].map((st) => rate(st, kind));
    const fmt = (c?: Cell) =>
      c
        ? `${Math.round(c.rps).toLocaleString('en')}/s, ${Math.round(c.cpuUs)} µs${c.errors ? ` (${c.errors} errors)` : ''}`
        : '-';
    const ratio =
      a && p && a.rps > 0 && p.cpuUs > 0
        ? `${(p.rps / a.rps).toFixed(2)} (${(a.cpuUs / p.cpuUs).toFixed(2)})`
        : '-';
    lines.push(`| ${kind} | ${fmt(a)} | ${fmt(s)} | ${fmt(p)} | ${ratio} |`);
  }
  lines.push(
    '',
    `| storage | idle RSS / PSS (MB) | after the load RSS / PSS (MB) | ${QUIET_WAIT_MS / 1000} s later RSS / PSS (MB) | then PSS own / mapped files (MB) | processes |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const m of memory as {
    storage: string;
    idle: TreeMemory;
    afterLoad: TreeMemory;
    quiet: TreeMemory;
  }[]) {
    const [idle, after, quiet] = [m.idle, m.afterLoad, m.quiet];
    lines.push(
      `| ${m.storage} | ${idle.rssMb} / ${idle.pssMb} | ${after.rssMb} / ${after.pssMb} | ${quiet.rssMb} / ${quiet.pssMb} | ${quiet.anonMb} / ${quiet.fileMb} | ${quiet.processes} |`,
    );
  }
  lines.push(...neverAskedLines(neverAsked));
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(options.out, JSON.stringify({ started, ended, cells, memory, neverAsked, options }, null, 2));
}
