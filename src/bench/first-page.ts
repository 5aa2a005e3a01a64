/**
 * `npm run bench -- --first-page`: the first page of a listing with a filter nobody sent before (issue 36, point
 * 3): `/nodes/page/1/?perpage=20&orderby=-ctime&node_type="T"` for every node type T of the data, each asked
 * once by a server just started (its plan, count and rows never made), then the same page asked again with
 * whole answers not kept (`keptAnswers: false`): the plan and count kept, the rows read and the answer written
 * again, as for any page whose answer is not kept. One client, one request at a time: the CPU time of the
 * server's processes (from the scheduler's accounting) and the time to the last byte; a server started anew
 * each round, so that every first request is a first. Before, the server has served the unfiltered page and
 * pages of types no node has (its code warm, the listing's statement shape seen, as on a server that has
 * served other types before). The types come in another order each round: a young-generation collection (3-4 ms
 * at 10^5 nodes) falls due at the same point of the same sequence of requests, and so landed on the same type's
 * first request in every round (Bool's, 4 ms against 1.3 ms measured alone); the median of the rounds leaves it out.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../generate/prng.js';
import { BENCH_KEPT_GETS } from './backend.js';
import { child } from './child.js';
import { loadAverage, treeCpuNs } from './process-table.js';
import { untilReady } from './pg-scale.js';
import { median } from './median.js';

const here = fileURLToPath(new URL('.', import.meta.url));

export interface FirstPageOptions {
  file: string;
  pgUrl?: string;
  processes: number;
  /** Servers started one after another: each asks every type once for the first time. */
  rounds: number;
  /** Times the page is asked again after its first answer (the median is kept). */
  again?: number;
  /** Serve with another build's dist/ folder (another version of Quarry). */
  serverDist?: string;
}

export interface FirstPageRow {
  nodeType: string;
  /** ms of the first request of each round. */
  firstMs: number[];
  /** Median ms of the same page asked again, each round. */
  againMs: number[];
  /** CPU ms of the server's processes for the first request of each round. */
  firstCpuMs: number[];
  /** Median CPU ms of the same page asked again, each round. */
  againCpuMs: number[];
  /** median first / median again, of the CPU. */
  ratio: number;
  /** The same, of the time to the last byte. */
  timeRatio: number;
}

/** Requests of each kind a server answers before it is measured. */
const WARM_UP_ASKS = 300;

const pagePath = (type: string) =>
  `/api/v4/nodes/page/1/?perpage=20&orderby=-ctime&node_type=${encodeURIComponent(`"${type}"`)}`;

/** One request: ms from its start to its last byte, and the CPU ms of the server's processes meanwhile. */
async function timed(base: string, path: string, pid: number): Promise<{ ms: number; cpuMs: number }> {
  const cpu = treeCpuNs(pid);
  const started = performance.now();
  const r = await fetch(`${base}${path}`);
  await r.arrayBuffer();
  const ms = performance.now() - started;
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
  return { ms, cpuMs: (treeCpuNs(pid) - cpu) / 1e6 };
}

/** `items` in an order of round `round`'s own, the same in every run. */
function shuffled<T>(items: readonly T[], round: number): T[] {
  const rng = new Rng(round + 1);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The node types of the data. */
async function nodeTypes(base: string): Promise<string[]> {
  const r = await fetch(`${base}/api/v4/querybuilder/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      path: [{ entity_type: '', orm_base: 'node', tag: 'n' }],
      project: { n: ['node_type'] },
      distinct: true,
      limit: 1000,
    }),
  });
  const answer = (await r.json()) as { data: { n: { node_type: string }[] } };
  return answer.data.n.map((n) => n.node_type).sort();
}

export async function firstPageBench(options: FirstPageOptions): Promise<{
  rows: FirstPageRow[];
  load: { start: string[]; end: string[] };
}> {
  const start = loadAverage();
  const again = options.again ?? 5;
  const rows = new Map<string, FirstPageRow>();
  process.env[BENCH_KEPT_GETS] = '0';
  for (let round = 0; round < options.rounds; round++) {
    const server = await child([
      join(options.serverDist ?? join(here, '..'), 'bench', 'serve-bench.js'),
      String(options.processes),
      options.file,
      ...(options.pgUrl ? [options.pgUrl] : []),
    ]);
    const base = `http://127.0.0.1:${server.port}`;
    try {
      await untilReady(base);
      const types = await nodeTypes(base);
      // As a server that has served a while, which is what is measured: its code compiled by the JIT for the
      // first ask of a URL as for a repeated one, by pages of types no node has (each a URL never asked, as the
      // measured first asks are), and the unfiltered page's plan made. After 50 requests the JIT was still at
      // work: the measured asks, first and again alike, cost a fifth more CPU.
      const pid = server.proc.pid!;
      for (let i = 0; i < WARM_UP_ASKS; i++) {
        await timed(base, '/api/v4/nodes/page/1/?perpage=20&orderby=-ctime', pid);
        await timed(base, pagePath(`data.bench.none${i}.None.`), pid);
      }
      for (const type of shuffled(types, round)) {
        const first = await timed(base, pagePath(type), pid);
        const later: { ms: number; cpuMs: number }[] = [];
        for (let i = 0; i < again; i++) later.push(await timed(base, pagePath(type), pid));
        const row = rows.get(type) ?? {
          nodeType: type,
          firstMs: [],
          againMs: [],
          firstCpuMs: [],
          againCpuMs: [],
          ratio: 0,
          timeRatio: 0,
        };
        const round2 = (x: number) => Number(x.toFixed(2));
        row.firstMs.push(round2(first.ms));
        row.againMs.push(round2(median(later.map((l) => l.ms))!));
        row.firstCpuMs.push(round2(first.cpuMs));
        row.againCpuMs.push(round2(median(later.map((l) => l.cpuMs))!));
        rows.set(type, row);
      }
    } finally {
      const exited = new Promise((r) => server.proc.once('exit', r));
      server.proc.kill('SIGTERM');
      await exited;
    }
  }
  for (const row of rows.values()) {
    row.ratio = Number((median(row.firstCpuMs)! / median(row.againCpuMs)!).toFixed(2));
    row.timeRatio = Number((median(row.firstMs)! / median(row.againMs)!).toFixed(2));
  }
  return {
    rows: [...rows.values()].sort((a, b) => a.nodeType.localeCompare(b.nodeType)),
    load: { start, end: loadAverage() },
  };
}

/** The rows as a Markdown table. */
export function firstPageLines(rows: FirstPageRow[]): string[] {
  const lines = [
    '| node type | first: CPU ms (each round) | again: CPU ms | CPU first / again | first: ms to last byte | again: ms | time first / again |',
    '| --- | --- | --- | ---: | --- | --- | ---: |',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.nodeType} | ${r.firstCpuMs.join(', ')} | ${r.againCpuMs.join(', ')} | ${r.ratio} | ` +
        `${r.firstMs.join(', ')} | ${r.againMs.join(', ')} | ${r.timeRatio} |`,
    );
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const total = (pick: (r: FirstPageRow) => number[]) => sum(rows.map((r) => median(pick(r))!));
  const [cpuFirst, cpuAgain] = [total((r) => r.firstCpuMs), total((r) => r.againCpuMs)];
  const [first, again] = [total((r) => r.firstMs), total((r) => r.againMs)];
  lines.push(
    '',
    `all types (sums of medians): CPU first ${cpuFirst.toFixed(1)} ms, again ${cpuAgain.toFixed(1)} ms: ` +
      `${(cpuFirst / cpuAgain).toFixed(2)}x; to the last byte first ${first.toFixed(1)} ms, again ` +
      `${again.toFixed(1)} ms: ${(first / again).toFixed(2)}x; types over 1.5x in CPU: ` +
      `${rows.filter((r) => r.ratio > 1.5).length} of ${rows.length}`,
  );
  return lines;
}
