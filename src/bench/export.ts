/**
 * `npm run bench -- --export <nodes>`: `.aiida` exports of a generated archive of that many nodes, served by a
 * Quarry in this process: how soon the export of one calculation with its provenance starts arriving (time to
 * its first byte) and ends, and how fast the exports of a large part of the graph (the latest workflows, and the
 * largest group within the bound on nodes) stream, with the process's peak memory (RSS, sampled every 20 ms) and
 * the machine's load average during each. The client reads each answer as it arrives, as a download does.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { defaultCacheDir, openArchive } from '../storage/index.js';
import { generateArchive, GENERATOR_VERSION } from '../generate/index.js';
import { median } from './median.js';
import { inRunFolder, servedFor } from './archive-server.js';

interface Download {
  status: number;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  peakRssMb: number;
}

/** GET `url`, reading the body as it comes; the time to the first byte of the body and to its end. */
function download(url: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    let first: number | undefined;
    let bytes = 0;
    request(url, (response) => {
      response.on('data', (chunk: Buffer) => {
        first ??= performance.now();
        bytes += chunk.length;
      });
      response.once('end', () => {
        clearInterval(sampler);
        const end = performance.now();
        resolve({
          status: response.statusCode ?? 0,
          firstByteMs: (first ?? end) - started,
          totalMs: end - started,
          bytes,
          peakRssMb: Math.round(peak / 1e6),
        });
      });
    })
      .once('error', (error) => {
        clearInterval(sampler);
        reject(error);
      })
      .end();
  });
}

async function json<T>(url: string): Promise<T> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/** A large export's plan (its dry run) and its download: first byte, end, stream rate, peak RSS. */
async function large(url: string) {
  const plan = await json<{ nodes: { total: number }; links: number; files: number; file_bytes: number }>(
    `${url}&dry_run=1`,
  );
  const d = await download(url);
  const streamSeconds = (d.totalMs - d.firstByteMs) / 1000;
  return {
    closureNodes: plan.nodes.total,
    links: plan.links,
    files: plan.files,
    fileBytes: plan.file_bytes,
    status: d.status,
    bytes: d.bytes,
    firstByteMs: Math.round(d.firstByteMs),
    totalMs: Math.round(d.totalMs),
    // From the first byte, and over the whole answer (what a download of it takes).
    streamMBps: Number((d.bytes / 1e6 / Math.max(streamSeconds, 1e-3)).toFixed(1)),
    overallMBps: Number((d.bytes / 1e6 / (d.totalMs / 1000)).toFixed(1)),
    nodesPerSecond: Math.round(plan.nodes.total / (d.totalMs / 1000)),
    peakRssMb: d.peakRssMb,
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
  };
}

export async function exportBench(nodes: number, out: string) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // The generated archive of main.ts's runs, made once and kept in the cache.
  const file = join(defaultCacheDir(), `bench-${nodes}-v${GENERATOR_VERSION}.aiida`);
  if (!existsSync(file)) {
    log(`generating ${nodes} nodes into ${file}`);
    await generateArchive({ nodes, out: file, seed: 1 });
  }
  const results: Record<string, unknown> = { nodes };
  await inRunFolder('export', async (cacheDir) => {
    const backend = await openArchive(file, { cacheDir });
    await servedFor(backend, async (base) => {
      type Listing = { data: { nodes: { uuid: string }[] } };
      const calc = await json<Listing>(
        `${base}/api/v4/nodes/?node_type=like="process.calculation.calcjob%25"&orderby=-id&limit=1&attributes=false`,
      );
      const uuid = calc.data.nodes[0]?.uuid;
      if (uuid === undefined) throw new Error('the generated archive has no calcjob');
      const one = `${base}/export/?nodes=${uuid}`;
      const plan = await json<{ nodes: { total: number }; files: number }>(`${one}&dry_run=1`);
      // The first export of a started server pays for its query processes and a cold page cache: said apart.
      const first = await download(one);
      const runs: Download[] = [];
      for (let i = 0; i < 3; i++) runs.push(await download(one));
      results.calculation = {
        firstEverFirstByteMs: Math.round(first.firstByteMs),
        closureNodes: plan.nodes.total,
        files: plan.files,
        bytes: runs[0]!.bytes,
        firstByteMsMedian: Math.round(median(runs.map((r) => r.firstByteMs)) ?? 0),
        totalMsMedian: Math.round(median(runs.map((r) => r.totalMs)) ?? 0),
        peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
        loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
      };
      log(`one calculation with its provenance: ${JSON.stringify(results.calculation)}`);

      // Large exports: the latest workflows (up to 300, within the request line's 16 KiB) with every rule at its
      // default, and the largest group whose export stays within --max-export-nodes (10^5 nodes at most).
      const flows = await json<Listing>(
        `${base}/api/v4/nodes/?node_type=like="process.workflow%25"&orderby=-id&limit=300&attributes=false`,
      );
      results.workflows = {
        startingNodes: flows.data.nodes.length,
        ...(await large(`${base}/export/?nodes=${flows.data.nodes.map((n) => n.uuid).join(',')}`)),
      };
      log(`the latest workflows: ${JSON.stringify(results.workflows)}`);
      const groups = await json<{ data: { groups: { uuid: string; label: string }[] } }>(
        `${base}/api/v4/groups/?attributes=false`,
      );
      let largest: { url: string; label: string; nodes: number } | undefined;
      for (const g of groups.data.groups) {
        const url = `${base}/export/?groups=${g.uuid}`;
        const r = await fetch(`${url}&dry_run=1`);
        const nodes = r.ok ? ((await r.json()) as { nodes: { total: number } }).nodes.total : 0;
        if (nodes > (largest?.nodes ?? 0)) largest = { url, label: g.label, nodes };
      }
      if (largest !== undefined) {
        results.group = { label: largest.label, ...(await large(largest.url)) };
        log(`the largest group within the bounds: ${JSON.stringify(results.group)}`);
      }
    });
  });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`results in ${out}`);
}
