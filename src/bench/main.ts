#!/usr/bin/env node
/**
 * `npm run bench`: serve a generated archive on loopback, drive the request mix with autocannon at several
 * concurrencies, and report each kind against the floors measured in the same run.
 */
import { statSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCommand, type Options } from './options.js';
import { buildApp } from '../server/app.js';
import { generateArchive, GENERATOR_VERSION } from '../generate/index.js';
import { defaultCacheDir, openArchive } from '../storage/index.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import { BENCH_METRICS, benchBackend } from './backend.js';
import type { DriveJob, DriveResult } from './drive.js';
import { runDrive } from './drive-client.js';
import { dataFloor, recordAccesses } from './floors.js';
import { loadAverage, machineTicks, processTable, processTree } from './process-table.js';
import { explainMix } from './pg-plans.js';
import {
  describeLoad,
  firstAnswers,
  loadedCluster,
  rssSampler,
  untilReady,
  type LoadedCluster,
} from './pg-scale.js';
import { EXPLORER_GRID_QUERY, requestMix, type RequestKind } from './mix.js';
import { child } from './child.js';
import { measureHomePage, type PageLoad } from './page-load.js';
import { searchBench, viewsBench } from './views.js';
import { getMix, scaleMix } from './scale-mix.js';
import { cheaper, markdownTable, printTable, ratio, type Measure } from './report.js';
import { steadily } from './steady.js';
import { optimadeBench } from './optimade.js';
import { postedSteps, stepLines, type PostedStep } from './posted-steps.js';
import { sameRows, type SameRows } from './same-rows.js';
import { besideOthers, crowdRatios, LARGE_FLOOR, type Beside } from './crowd.js';

/** User + system CPU time so far, in ms, of a process and all its descendants; undefined when it is gone. */
function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const table = processTable();
  const tree = processTree(pid, table);
  if (tree.size === 0) return undefined;
  let total = 0;
  for (const p of tree) total += table.get(p)?.cpuMs ?? 0;
  return total;
}

/** Drive `kind` at `base` with `connections` clients for `duration` seconds; each client cycles the variants. */
/** Where each fresh kind's limits go on (src/bench/mix.ts, `fresh`): no run asks what an earlier one asked. */
const freshLimits = new Map<string, number>();

async function load(base: string, kind: LoadedKind, connections: number, duration: number, pid?: number) {
  const cpuBefore = cpuTimeMs(pid);
  const machineBefore = machineTicks();
  const { total, ...figures } = await drive(job(base, kind, connections, duration));
  const cpuAfter = cpuTimeMs(pid);
  const machineAfter = machineTicks();
  const elapsed = machineAfter.total - machineBefore.total;
  return {
    cpuMs:
      cpuBefore === undefined || cpuAfter === undefined || total === 0
        ? undefined
        : (cpuAfter - cpuBefore) / total,
    stealPct: elapsed > 0 ? Math.round((100 * (machineAfter.steal - machineBefore.steal)) / elapsed) : 0,
    ...figures,
  } satisfies Measure;
}

/** The load generator's job: `kind` at `base` with `connections` clients for `duration` seconds. */
function job(base: string, kind: LoadedKind, connections: number, duration: number): DriveJob {
  return {
    url: base,
    name: kind.name,
    method: kind.method,
    paths: kind.paths,
    body: kind.body === undefined ? undefined : JSON.stringify(kind.body),
    headers: kind.headers,
    expectStatus: kind.expectStatus,
    connections,
    duration,
    ...(kind.fresh ? { freshLimitsFrom: freshLimits.get(`${base} ${kind.name ?? ''}`) ?? 5000 } : {}),
  };
}

type LoadedKind = Pick<RequestKind, 'method' | 'body' | 'paths' | 'headers' | 'expectStatus' | 'fresh'> & {
  name?: string;
};

/** Run the load generator in its own process (drive.js) on `job`. */
async function drive(job: DriveJob): Promise<DriveResult> {
  const result = await runDrive(job);
  // A fresh kind's next run starts where this one stopped: no run asks what an earlier one asked.
  if (job.freshLimitsFrom !== undefined) freshLimits.set(`${job.url} ${job.name ?? ''}`, result.nextLimit);
  return result;
}

export async function dataset(nodes: number): Promise<string> {
  const file = join(defaultCacheDir(), `bench-${nodes}-v${GENERATOR_VERSION}.aiida`);
  try {
    await stat(file);
  } catch {
    process.stderr.write(`generating ${nodes} nodes into ${file}\n`);
    await generateArchive({ nodes, out: file, seed: 1 });
  }
  return file;
}

async function main(options: Options) {
  if (options.export !== undefined) {
    const { exportBench } = await import('./export.js');
    return exportBench(options.export, options.out);
  }
  if (options.legacy !== undefined) {
    const { legacyBench } = await import('./legacy.js');
    return legacyBench({ sizes: options.legacy, out: options.out });
  }
  if (options.sources !== undefined) {
    const { portalBench } = await import('./portal.js');
    await portalBench({
      sources: options.sources,
      nodes: 500,
      asked: options.sourcesAsked,
      out: options.out,
    });
    return;
  }
  if (options.searchPortal !== undefined) {
    const { searchPortalBench } = await import('./search-portal.js');
    await searchPortalBench({ archives: options.searchPortal, nodes: options.nodes, out: options.out });
    return;
  }
  if (options.optimade !== undefined) return optimadeBench(options.optimade, options.out);
  if (options.search !== undefined)
    return searchBench({
      structures: options.search,
      processes: options.processes,
      runs: options.runs,
      out: options.out,
    });
  if (options.sideBySide) {
    const { sideBySide, CONFORMANCE_DATA } = await import('./side-by-side.js');
    if (options.data !== undefined && options.container === undefined)
      throw new Error("--side-by-side --data ARCHIVE needs --container TARBALL (the profile's repository)");
    return sideBySide({
      archive: options.data ?? CONFORMANCE_DATA.archive,
      container: options.container ?? CONFORMANCE_DATA.container,
      processes: options.processes,
      connections: Number(options.concurrency.split(',')[0]),
      duration: options.duration,
      rounds: options.tries,
      serverDist: options.serverDist,
      out: options.out,
      only: options.only,
    });
  }
  if (options.firstPage) {
    const { firstPageBench, firstPageLines } = await import('./first-page.js');
    const file = options.data ?? (await dataset(options.nodes));
    let loaded: LoadedCluster | undefined;
    if (options.backend === 'postgres') {
      const archive = await openArchive(file);
      loaded = await loadedCluster((archive.db as SqlitePool).file, (line) =>
        process.stderr.write(`  ${line}\n`),
      );
      await archive.close();
    }
    try {
      const result = await firstPageBench({
        file,
        pgUrl: loaded?.url,
        processes: options.processes,
        rounds: options.tries,
        serverDist: options.serverDist,
      });
      const lines = [
        `${file}${loaded ? ' on PostgreSQL' : ''}, ${options.processes} serving processes, ${options.tries} servers;` +
          ` load average ${result.load.start.join(' ')} at the start, ${result.load.end.join(' ')} at the end`,
        '',
        ...firstPageLines(result.rows),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      writeFileSync(options.out, JSON.stringify({ nodes: options.nodes, ...result }, null, 1));
    } finally {
      loaded?.cluster.destroy();
    }
    return;
  }
  if (options.views) {
    const file = await dataset(options.nodes);
    return viewsBench({ file, ...options });
  }
  const loadStart = loadAverage();
  const levels = options.concurrency.split(',').map(Number);
  // Read by the server processes this starts (serve-bench.ts).
  if (options.metrics) process.env[BENCH_METRICS] = '1';
  const here = fileURLToPath(new URL('.', import.meta.url));
  const file = options.data ?? (await dataset(options.nodes));
  if (options.data && options.backend === 'postgres' && statSync(options.data).isDirectory())
    throw new Error('--backend postgres loads an archive: give --data a .aiida file, not a folder');
  let loaded: LoadedCluster | undefined;
  if (options.backend === 'postgres' && !options.pgUrl) {
    const archive = await openArchive(file);
    process.stderr.write(`loading ${options.nodes} nodes into PostgreSQL\n`);
    loaded = await loadedCluster((archive.db as SqlitePool).file, (line) =>
      process.stderr.write(`  ${line}\n`),
    );
    await archive.close();
    process.stderr.write(`${describeLoad(loaded)}\n`);
  }
  const cluster = loaded?.cluster;
  const pgUrl = loaded?.url ?? (options.backend === 'postgres' ? options.pgUrl : undefined);
  const backend = await benchBackend(file, pgUrl);
  const probe = await buildApp({ backends: [backend] });
  const mixed = [...(await requestMix(probe)), ...(await scaleMix(probe))];
  const everyKind = [...mixed, getMix(mixed)];
  const kinds = everyKind.filter((k) => options.only === undefined || k.name.includes(options.only));
  if (kinds.length === 0) throw new Error(`--only ${options.only}: no request kind has that in its name`);
  await probe.close();
  const accesses = await recordAccesses(backend, kinds);
  // Where a never-asked grid query's time goes, step by step with floors (in this process, before the load).
  let gridSteps: PostedStep[] | undefined;
  if (kinds.some((k) => k.name.includes('explorer grid'))) {
    gridSteps = await postedSteps(backend, EXPLORER_GRID_QUERY);
    process.stderr.write(
      `the explorer grid query, never asked, step by step (median ms):\n${stepLines(gridSteps)}`,
    );
  }
  // A kind's data floor does not depend on the clients: measured once. Statements of seconds (the first count
  // or summary of 10^7 nodes) are timed over 3 rounds instead of 15.
  const floors = new Map<string, Promise<number | undefined>>();
  const floorOf = (name: string) => {
    const measure = async () => {
      const quick = await dataFloor(backend, accesses.get(name) ?? [], pgUrl, 3);
      return quick !== undefined && quick > 100 ? quick : dataFloor(backend, accesses.get(name) ?? [], pgUrl);
    };
    return floors.get(name) ?? floors.set(name, measure()).get(name)!;
  };
  if (options.plans && pgUrl) {
    const slow = (await explainMix(pgUrl, accesses, options.plans)).filter(
      (p) => p.ms > 5 || p.sharesOfNodes > 0.1,
    );
    process.stderr.write(`wrote ${options.plans}; statements over 5 ms or reading over 10 % of the nodes:\n`);
    for (const p of slow)
      process.stderr.write(`  ${p.kind} #${p.statement}: ${p.ms} ms, ${p.nodeRowsRead} node rows\n`);
  }

  const empty = await child([join(here, 'empty-server.js'), String(options.processes)]);
  const server = options.target
    ? undefined
    : await child([join(here, 'serve-bench.js'), String(options.processes), file, ...(pgUrl ? [pgUrl] : [])]);
  const base = options.target ?? `http://127.0.0.1:${server?.port}`;
  const rows: Record<string, unknown>[] = [];
  let homePage: PageLoad | undefined;
  let first: Awaited<ReturnType<typeof firstAnswers>> | undefined;
  let warmUpMs: number | undefined;
  let rss: { maxMb: number; maxTotalMb: number } | undefined;
  let beside: Beside | undefined;
  let same: SameRows[] | undefined;
  try {
    // The node-wide summaries on their first request after the server started, then once kept.
    if (server) {
      const readiness = untilReady(base);
      first = await firstAnswers(base, ['/api/v4/nodes/statistics/', '/api/v4/nodes/full_types_count/']);
      for (const f of first)
        process.stderr.write(`${f.path}: first ${f.firstMs} ms, then ${f.laterMs.join(', ')} ms\n`);
      warmUpMs = await readiness;
      process.stderr.write(`ready (summaries computed ahead) ${warmUpMs} ms after listening\n`);
    }
    const sampler = server?.proc.pid === undefined ? undefined : rssSampler(server.proc.pid);
    // After the first answers above: the page asks for the summaries too.
    if (!options.target) homePage = await measureHomePage(base);
    // A served API runs warm: each kind is driven once, unmeasured, so that no figure counts the compiler's
    // first passes or the first fill of kept plans and page caches.
    const busiest = Math.max(...levels);
    const emptyRoute = { method: 'GET' as const, paths: ['/'] };
    await load(`http://127.0.0.1:${empty.port}`, emptyRoute, busiest, options.warmup);
    const warm = new Map<string, number>();
    for (const kind of kinds) warm.set(kind.name, (await load(base, kind, busiest, options.warmup)).bytes);
    const large = largeAnswerFloor(warm.get('querybuilder explorer grid'));
    if (kinds.some((k) => k.method === 'POST')) {
      // Another server of the API (--target) may page or post otherwise: said, and the run goes on.
      same = await sameRows(base).catch((error: unknown) => {
        process.stderr.write(`posted queries beside GET pages: not measured (${(error as Error).message})\n`);
        return [];
      });
      for (const f of same)
        process.stderr.write(
          `${f.rows} rows never asked, 1 client: GET page ${f.getMs} ms, posted query ${f.postMs} ms (${f.ratio}x)\n`,
        );
    }
    const steady = (measure: () => Promise<Measure>) => steadily(measure, options);
    for (const connections of levels) {
      const floorRun = () =>
        steady(() =>
          load(`http://127.0.0.1:${empty.port}`, emptyRoute, connections, options.duration, empty.proc.pid),
        );
      const before = await floorRun();
      // Kept bytes of the grid's size from the bare server: what loopback and the load generator allow.
      const largeFloor =
        large &&
        (await steady(() =>
          load(`http://127.0.0.1:${empty.port}`, large, connections, options.duration, empty.proc.pid),
        ));
      const measured: { kind: RequestKind; figures: Measure; data: number | undefined }[] = [];
      for (const kind of kinds) {
        const figures = await steady(() => load(base, kind, connections, options.duration, server?.proc.pid));
        measured.push({
          kind,
          figures,
          data: await floorOf(kind.name),
        });
      }
      const after = await floorRun();
      // The floor is measured before and after the kinds, and the ratios use the cheaper of the two: a floor
      // caught in a noisy moment of this shared machine would flatter every ratio against it.
      const floor = cheaper(before, after);
      rows.push({ kind: 'empty route (HTTP floor, before)', connections, ...before });
      rows.push({ kind: 'empty route (HTTP floor, after)', connections, ...after });
      if (large && largeFloor) rows.push({ kind: large.name, connections, ...largeFloor });
      for (const { kind, figures, data } of measured) {
        rows.push({
          kind: kind.name,
          variants: kind.paths.length,
          connections,
          ...figures,
          dataFloorMs: data === undefined ? null : Number(data.toFixed(3)),
          ratioToFloors: data === undefined ? null : ratio(figures, floor, data),
        });
      }
    }
    // Single nodes while clients download plots: a cheap request must not wait behind heavy ones.
    const single = kinds.find((k) => k.name === 'single node');
    const png = everyKind.find((k) => k.name === 'bands download as mpl_png');
    if (single && png) {
      beside = await besideOthers((kind, n) => drive(job(base, kind, n, options.duration)), single, png, 8);
      process.stderr.write(
        `single node, 1 client: alone p50 ${beside.alone.p50} / p99 ${beside.alone.p99} ms; beside 8 clients ` +
          `downloading PNGs p50 ${beside.beside.p50} / p99 ${beside.beside.p99} ms ` +
          `(PNGs: ${beside.noisyFigures.rps} req/s, ${beside.noisyFigures.errors} errors)\n`,
      );
    }
    rss = sampler?.stop();
    if (rss) process.stderr.write(`Quarry's memory under the mix: ${rss.maxMb} MB per process at most\n`);
  } finally {
    empty.proc.kill();
    server?.proc.kill();
    await backend.close();
    cluster?.destroy();
  }
  printTable(rows);
  const crowd = crowdRatios(rows, levels);
  for (const c of crowd)
    process.stderr.write(
      `${c.kind}: ${c.connections} clients ${c.rps} req/s, one client ${c.soloRps} req/s: ${c.ratio}x one after another\n`,
    );
  if (homePage) {
    process.stderr.write(
      `explorer home page (Chromium, first visit): figures in ${homePage.medianFiguresMs} ms, ` +
        `everything in ${homePage.medianSettledMs} ms (median of ${homePage.figuresMs.length})\n`,
    );
  }
  writeFileSync(
    options.out,
    JSON.stringify(
      {
        nodes: options.nodes,
        backend: options.backend,
        processes: options.processes,
        target: base,
        duration: options.duration,
        homePage,
        ...(loaded ? { postgres: { load: loaded.load, clusterBytes: loaded.clusterBytes } } : {}),
        // How busy the machine was with other work: this 2-core machine is shared, and other guests' work shows
        // as steal but other processes' work on this guest only here.
        loadAverage: { start: loadStart, end: loadAverage() },
        firstAnswers: first,
        warmUpMs,
        rss,
        data: file,
        gridSteps,
        sameRows: same,
        crowd,
        beside,
        rows,
      },
      null,
      1,
    ),
  );
  writeFileSync(options.out.replace(/\.json$/, '') + '.md', markdownTable(rows));
  process.stderr.write(`wrote ${options.out} and its table as Markdown\n`);
  if (rows.some((r) => (r.errors as number) > 0)) process.exitCode = 1;
}

/**
 * The HTTP floor of a large answer: the empty server's `/bytes/N` (N kept bytes as JSON) for an answer of
 * `bytes` (headers included, as the load generator counts them). At 64 clients its throughput falls below one
 * client's however little the server does: 64 interleaved streams of 418 kB cost the load generator, on the
 * same two cores, far more per answer than one stream does.
 */
function largeAnswerFloor(bytes: number | undefined): RequestKind | undefined {
  if (bytes === undefined || bytes < 65_536) return undefined;
  return { name: LARGE_FLOOR, method: 'GET', paths: [`/bytes/${bytes - 200}`] };
}

benchCommand(main)
  .parseAsync()
  .catch((error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exit(1);
  });
