/**
 * `npm run bench -- --sources N`: a portal of N generated archives served by `quarry serve FOLDER` (2 serving
 * processes), each archive asked once. Reports what the targets are about: the process tree's memory
 * (RSS) and open files after every archive was asked, the first request to an archive already extracted but
 * not open (p50), a request to an open archive next to the same request with one archive served, and the
 * time from start to ready. The archives are hard links of one generated file (no disk per archive beyond
 * its extracted database).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArchive } from '../generate/index.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { processTree } from './process-table.js';

export interface PortalBenchOptions {
  sources: number;
  /** Nodes of each archive (the figure: 500). */
  nodes: number;
  /** Archives asked at most (10,000 sources: the rest are names only). */
  asked?: number;
  out: string;
}

const cli = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export interface Served {
  child: ChildProcess;
  port: number;
  /** Milliseconds from the start of the command to its first 200 from /readyz. */
  readyMs: number;
}

export async function serve(args: string[], cacheDir: string): Promise<Served> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [cli, 'serve', ...args, '--port', '0', '--processes', '2', '--cache-dir', cacheDir, '--no-ui'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  for (;;) {
    const port = /:(\d+)\/api\/v4\//.exec(stderr)?.[1];
    if (port !== undefined) {
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return { child, port: Number(port), readyMs: performance.now() - started };
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    if (child.exitCode !== null) throw new Error(`quarry serve stopped: ${stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function stop(served: Served) {
  const exited = new Promise((resolve) => served.child.once('exit', resolve));
  served.child.kill('SIGTERM');
  await exited;
}

/** RSS in MB and open files of a process and all its descendants. */
export function treeCost(pid: number): { rssMb: number; openFiles: number; processes: number } {
  let rss = 0;
  let files = 0;
  const tree = processTree(pid);
  for (const p of tree) {
    try {
      rss += Number(readFileSync(`/proc/${p}/statm`, 'latin1').split(' ')[1]) * 4096;
      files += readdirSync(`/proc/${p}/fd`).length;
    } catch {
      // Ended while being read.
    }
  }
  return { rssMb: Math.round(rss / 2 ** 20), openFiles: files, processes: tree.size };
}

const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN) * 10) / 10;
};

/** Each name asked once (`/<name>/api/v4/nodes/?limit=1`), 4 at a time: the latency of each. */
async function askEach(port: number, names: string[]): Promise<number[]> {
  const times: number[] = [];
  const work = [...names];
  let failures = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let name = work.shift(); name !== undefined; name = work.shift()) {
        const t = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/${name}/api/v4/nodes/?limit=1`);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status !== 200) failures++;
      }
    }),
  );
  if (failures > 0) throw new Error(`${failures} of ${names.length} first requests failed`);
  return times;
}

/** One request repeated on a keep-alive connection: p50 in ms. */
async function repeated(port: number, path: string, times = 400): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await (await fetch(`http://127.0.0.1:${port}${path}`)).arrayBuffer();
    ms.push(performance.now() - t);
  }
  return p(ms, 0.5);
}

export async function portalBench(options: PortalBenchOptions) {
  const root = join(defaultCacheDir(), 'bench-portal');
  mkdirSync(root, { recursive: true });
  const archive = join(root, `one-${options.nodes}.aiida`);
  if (!existsSync(archive)) await generateArchive({ nodes: options.nodes, out: archive, seed: 1 });
  const folder = join(root, `sources-${options.sources}`);
  rmSync(folder, { recursive: true, force: true });
  const names: string[] = [];
  for (let i = 0; i < options.sources; i++) {
    const sub = join(folder, `part-${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(sub, { recursive: true });
    const name = `set-${String(i).padStart(5, '0')}`;
    linkSync(archive, join(sub, `${name}.aiida`));
    names.push(name);
  }
  const asked = names.slice(0, Math.min(names.length, options.asked ?? names.length));
  const cacheDir = join(root, `cache-${options.sources}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);

  log(`portal of ${options.sources} archives (${options.nodes} nodes each), ${asked.length} asked once`);
  // Cold: every database extracted on its first request.
  let served = await serve([folder], cacheDir);
  const coldStartMs = served.readyMs;
  const extracting = await askEach(served.port, asked);
  await stop(served);

  // Extracted, not open: a new server on the same cache folder. Its start is timed apart from the writing of
  // the databases just extracted (flushed first), as the median of three starts.
  spawnSync('sync');
  const starts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const again = await serve([folder], cacheDir);
    starts.push(again.readyMs);
    await stop(again);
  }
  served = await serve([folder], cacheDir);
  starts.push(served.readyMs);
  const readyMs = p(starts, 0.5);
  const firstOpen = await askEach(served.port, asked);
  await new Promise((r) => setTimeout(r, 500));
  const cost = treeCost(served.child.pid!);
  const openPath = `/${asked[0]}/api/v4/nodes/?limit=1`;
  const openP50 = await repeated(served.port, openPath);
  await stop(served);

  // The same request with one archive served alone.
  const single = await serve([archive], cacheDir);
  const singleP50 = await repeated(single.port, '/api/v4/nodes/?limit=1');
  await stop(single);

  const result = {
    sources: options.sources,
    asked: asked.length,
    nodesEach: options.nodes,
    startToReadyMs: Math.round(readyMs),
    coldStartToReadyMs: Math.round(coldStartMs),
    firstRequestExtractingP50Ms: p(extracting, 0.5),
    firstRequestExtractedP50Ms: p(firstOpen, 0.5),
    firstRequestExtractedP99Ms: p(firstOpen, 0.99),
    rssMb: cost.rssMb,
    openFiles: cost.openFiles,
    processes: cost.processes,
    openArchiveP50Ms: openP50,
    singleArchiveP50Ms: singleP50,
    singleStartToReadyMs: Math.round(single.readyMs),
  };
  log(
    [
      `  start to ready            ${result.startToReadyMs} ms (median of 3; first start, empty cache: ${result.coldStartToReadyMs} ms; one archive alone: ${result.singleStartToReadyMs} ms)`,
      `  first request, extracting p50 ${result.firstRequestExtractingP50Ms} ms`,
      `  first request, extracted  p50 ${result.firstRequestExtractedP50Ms} ms, p99 ${result.firstRequestExtractedP99Ms} ms`,
      `  after all asked once      ${result.rssMb} MB RSS, ${result.openFiles} open files, ${result.processes} processes`,
      `  open archive p50          ${result.openArchiveP50Ms} ms (one archive served alone: ${result.singleArchiveP50Ms} ms)`,
    ].join('\n'),
  );
  writeFileSync(options.out, JSON.stringify(result, null, 1));
  rmSync(folder, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
  return result;
}
