/**
 * `npm run bench -- --export <nodes>`: `.aiida` exports of a generated archive of that many nodes, served by a
 * Quarry in this process: how soon the export of one calculation with its provenance starts arriving (time to
 * its first byte) and ends, and how fast the export of a large part of the graph (every node's closure from the
 * largest group, or the latest workflows) streams, with the process's peak memory (RSS, sampled every 20 ms)
 * during each. The client reads each answer as it arrives, as a download does.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
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
      };
      log(`one calculation with its provenance: ${JSON.stringify(results.calculation)}`);

      // The largest part of the graph one request can name: the latest workflows (up to 300, within the
      // request line's 16 KiB) with every rule at its default.
      const flows = await json<Listing>(
        `${base}/api/v4/nodes/?node_type=like="process.workflow%25"&orderby=-id&limit=300&attributes=false`,
      );
      const large = `${base}/export/?nodes=${flows.data.nodes.map((n) => n.uuid).join(',')}`;
      const largePlan = await json<{
        nodes: { total: number };
        links: number;
        files: number;
        file_bytes: number;
      }>(`${large}&dry_run=1`);
      const big = await download(large);
      const streamSeconds = (big.totalMs - big.firstByteMs) / 1000;
      results.large = {
        startingNodes: flows.data.nodes.length,
        closureNodes: largePlan.nodes.total,
        links: largePlan.links,
        files: largePlan.files,
        fileBytes: largePlan.file_bytes,
        status: big.status,
        bytes: big.bytes,
        firstByteMs: Math.round(big.firstByteMs),
        totalMs: Math.round(big.totalMs),
        streamMBps: Number((big.bytes / 1e6 / Math.max(streamSeconds, 1e-3)).toFixed(1)),
        nodesPerSecond: Math.round(largePlan.nodes.total / (big.totalMs / 1000)),
        peakRssMb: big.peakRssMb,
      };
      log(`a large export: ${JSON.stringify(results.large)}`);
    });
  });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`results in ${out}`);
}
