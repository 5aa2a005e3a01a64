/**
 * The benchmark on PostgreSQL at scale: a throw-away cluster tuned for it and loaded from the generated
 * archive (how long, how much disk), the first answers of the node-wide summaries after Quarry starts, and
 * the memory Quarry's processes hold under the request mix.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadIntoPostgres, type LoadReport } from './pg-load.js';
import { startCluster, type Cluster, type ClusterSettings } from './postgres-cluster.js';
import { processTree } from './process-table.js';

/**
 * Settings of the benchmark's own server (it holds nothing else; a real profile's server has its own).
 * Memory: shared_buffers holds the hot pages of the indexes and recent nodes (the rest stays in the OS page
 * cache, which effective_cache_size tells the planner about); work_mem lets the grouped counts of the
 * statistics hash in memory; maintenance_work_mem sorts each index build in memory. Loading: with
 * wal_level=minimal a table created and filled in one transaction skips the WAL, and a large max_wal_size
 * keeps checkpoints out of the load. The planner's costs (random_page_cost…) and JIT stay at their defaults,
 * so that its plans are the ones a server with default settings picks.
 */
export const BENCH_SETTINGS: ClusterSettings = {
  shared_buffers: '2GB',
  effective_cache_size: '12GB',
  work_mem: '64MB',
  maintenance_work_mem: '1GB',
  max_parallel_maintenance_workers: 2,
  wal_level: 'minimal',
  max_wal_senders: 0,
  max_wal_size: '16GB',
  checkpoint_timeout: '1h',
  synchronous_commit: 'off',
};

export interface LoadedCluster {
  cluster: Cluster;
  url: string;
  load: LoadReport;
  /** Size of the cluster's data folder after the load, in bytes (du). */
  clusterBytes: number;
}

/** A tuned throw-away cluster holding the SQLite file's data in database `bench`. */
export async function loadedCluster(
  sqliteFile: string,
  progress: (line: string) => void,
): Promise<LoadedCluster> {
  const cluster = await startCluster({ settings: BENCH_SETTINGS });
  try {
    cluster.sql('postgres', 'CREATE DATABASE bench');
    const url = cluster.url('bench');
    const load = await loadIntoPostgres(sqliteFile, url, progress);
    cluster.sql('bench', 'CHECKPOINT');
    return { cluster, url, load, clusterBytes: folderBytes(cluster.dataDir) };
  } catch (error) {
    cluster.destroy();
    throw error;
  }
}

/** Disk used by a folder, in bytes (`du`: blocks actually allocated). */
export function folderBytes(dir: string): number {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

/** The load in one line for the log. */
export function describeLoad({ load, clusterBytes }: LoadedCluster): string {
  const s = load.seconds;
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
  return (
    `loaded in ${s.total.toFixed(0)} s (COPY ${s.copy.toFixed(0)} s at ${load.rowsPerSecond} rows/s, keys ` +
    `${s.keys.toFixed(0)} s, indexes ${s.indexes.toFixed(0)} s, foreign keys ${s.foreignKeys.toFixed(0)} s, ` +
    `vacuum+analyze ${s.analyze.toFixed(0)} s); database ${gb(load.databaseBytes)}, cluster folder ${gb(clusterBytes)}`
  );
}

export interface FirstAnswer {
  path: string;
  /** Milliseconds of the first answer after the server started, then of the next ones (each of them). */
  firstMs: number;
  laterMs: number[];
}

/**
 * Milliseconds until `/readyz` answers 200 on `times` new connections in a row (each may reach another serving
 * process): a live database's serving processes are ready once they have computed its summaries ahead.
 */
export async function untilReady(base: string, times = 4, limitMs = 600_000): Promise<number> {
  const started = performance.now();
  const ready = () =>
    new Promise<boolean>((resolve) => {
      const request = get(`${base}/readyz`, { agent: false }, (r) => {
        r.resume();
        resolve(r.statusCode === 200);
      });
      request.on('error', () => resolve(false));
    });
  let inRow = 0;
  while (inRow < times) {
    if (performance.now() - started > limitMs) throw new Error(`${base} not ready after ${limitMs / 1000} s`);
    inRow = (await ready()) ? inRow + 1 : 0;
    if (inRow === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return Math.round(performance.now() - started);
}

/**
 * The time of the first answers to `paths` from a server that has just started, then of `later` more of each.
 * A live database's summaries are being computed ahead then, and the first answers wait for that computation.
 * With several server processes each computes its own; the later answers show every process's.
 */
export async function firstAnswers(base: string, paths: string[], later = 6): Promise<FirstAnswer[]> {
  const timed = async (path: string) => {
    const t = performance.now();
    const r = await fetch(base + path);
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`${path}: ${r.status}`);
    return Number((performance.now() - t).toFixed(1));
  };
  const out: FirstAnswer[] = [];
  for (const path of paths) {
    const firstMs = await timed(path);
    const laterMs: number[] = [];
    for (let i = 0; i < later; i++) laterMs.push(await timed(path));
    out.push({ path, firstMs, laterMs });
  }
  return out;
}

/** Resident memory (VmRSS) of every process of a tree, sampled until stopped: the largest seen, per process. */
export function rssSampler(pid: number, everyMs = 250): { stop(): { maxMb: number; maxTotalMb: number } } {
  let maxMb = 0;
  let maxTotalMb = 0;
  const sample = () => {
    let total = 0;
    for (const p of processTree(pid)) {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
        total += kb / 1024;
        maxMb = Math.max(maxMb, kb / 1024);
      } catch {
        // The process ended while being read.
      }
    }
    maxTotalMb = Math.max(maxTotalMb, total);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { maxMb: Math.round(maxMb), maxTotalMb: Math.round(maxTotalMb) };
    },
  };
}
