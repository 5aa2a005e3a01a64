/**
 * `npm run bench -- --optimade <structures>`: the OPTIMADE figures of issue 28 on an archive of that many
 * structures (optimade-data.ts): the side table's build time (its first pass, then its symmetry), the first page of the two filters the issue names
 * (one client, p50 of sequential requests), and at 16 clients the same pages against the v4 API's page of 20.
 * The load generator runs in its own process (drive.js); the server runs in this one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completeSymmetry, openSideTable } from '../optimade/side-table.js';
import { defaultCacheDir, openArchive } from '../storage/index.js';
import type { DriveResult } from './drive.js';
import { runDrive } from './drive-client.js';
import { structuresArchive } from './optimade-data.js';
import { median } from './median.js';
import { inRunFolder, servedFor } from './archive-server.js';

const FILTERS = {
  'elements HAS ALL Si,O AND nelements=2': `filter=${encodeURIComponent('elements HAS ALL "Si","O" AND nelements=2')}`,
  'nsites<10 sorted by nsites': `filter=${encodeURIComponent('nsites<10')}&sort=nsites`,
};
const SEQUENTIAL = 40;
const PAIRS = ['Si', 'O', 'Fe', 'Ni', 'Ga', 'N', 'Ti', 'Al', 'Mg', 'Cu', 'Zn', 'S', 'Li', 'Na', 'Ca'];

/**
 * Forty filters of each shape that no request asked before (other element pairs, other site counts): their
 * counts and entries are computed for each, as for a client's first question.
 */
function unseen(): Record<string, string[]> {
  const pairs: string[] = [];
  for (let i = 0; i < PAIRS.length && pairs.length < SEQUENTIAL; i++)
    for (let j = i + 1; j < PAIRS.length && pairs.length < SEQUENTIAL; j++)
      pairs.push(
        `filter=${encodeURIComponent(`elements HAS ALL "${PAIRS[i]}","${PAIRS[j]}" AND nelements=2`)}`,
      );
  const sites = Array.from(
    { length: SEQUENTIAL },
    (_, k) => `filter=${encodeURIComponent(`nsites<${k + 2}`)}&sort=nsites`,
  );
  // Group 1 (P1) holds most random structures: its count is the longest index range of the forty.
  const groups = Array.from(
    { length: SEQUENTIAL },
    (_, k) => `filter=${encodeURIComponent(`space_group_it_number=${k + 1}`)}`,
  );
  return {
    'elements HAS ALL x,y AND nelements=2 (40 pairs)': pairs,
    'nsites<k sorted by nsites (k = 2..41)': sites,
    'space_group_it_number=k (k = 1..40)': groups,
  };
}

async function firstTimes(base: string, queries: string[]): Promise<{ p50: number; max: number }> {
  const times: number[] = [];
  for (const query of queries) {
    const start = performance.now();
    const r = await fetch(`${base}/optimade/v1/structures?page_limit=20&${query}`);
    await r.text();
    if (r.status !== 200) throw new Error(`${query}: ${r.status}`);
    times.push(performance.now() - start);
  }
  return { p50: median(times)!, max: Math.max(...times) };
}
const LOAD_SECONDS = 5;
const CLIENTS = 16;

async function sequential(url: string): Promise<{ p50: number; max: number; returned: number }> {
  let returned = 0;
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL + 5; i++) {
    const start = performance.now();
    const r = await fetch(url);
    const body = (await r.json()) as { meta?: { data_returned?: number } };
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    returned = body.meta?.data_returned ?? 0;
    if (i >= 5) times.push(performance.now() - start);
  }
  return { p50: median(times)!, max: Math.max(...times), returned };
}

export async function optimadeBench(structures: number, out: string) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const file = await structuresArchive(structures, join(defaultCacheDir(), 'bench'), log);
  const results: Record<string, unknown> = { structures };
  await inRunFolder('optimade', async (cacheDir) => {
    let started = performance.now();
    const backend = await openArchive(file, { cacheDir });
    results.extractSeconds = (performance.now() - started) / 1000;
    log(`building the side table of ${structures} structures`);
    started = performance.now();
    const table = await openSideTable(backend, backend.identity!, { cacheDir });
    results.sideTableSeconds = (performance.now() - started) / 1000;
    log(`side table (served from here on): ${(results.sideTableSeconds as number).toFixed(1)} s`);
    // The second pass: every structure's space group (side-symmetry.ts), which symmetry filters wait for.
    started = performance.now();
    const complete = await completeSymmetry(backend, table, () => undefined, { cacheDir });
    results.symmetrySeconds = (performance.now() - started) / 1000;
    await Promise.all([table.close(), complete.close()]);
    log(`its symmetry pass: ${(results.symmetrySeconds as number).toFixed(1)} s`);

    await servedFor(backend, async (base) => {
      const fresh: Record<string, unknown> = {};
      for (const [name, queries] of Object.entries(unseen())) {
        fresh[name] = await firstTimes(base, queries);
        log(`${name}, each asked once: ${JSON.stringify(fresh[name])}`);
      }
      results.firstPageNeverAsked = fresh;
      const pages: Record<string, unknown> = {};
      for (const [name, query] of Object.entries(FILTERS)) {
        // Asked again and again: its count and entries are kept after the first.
        pages[name] = await sequential(`${base}/optimade/v1/structures?page_limit=20&${query}`);
        log(`${name}: ${JSON.stringify(pages[name])}`);
      }
      results.firstPageOneClient = pages;
      const load: Record<string, DriveResult> = {};
      const paths: Record<string, string> = {
        'v4 /nodes/page/1/ (20 nodes)': '/api/v4/nodes/page/1/',
        'optimade structures page of 20': '/optimade/v1/structures?page_limit=20',
        ...Object.fromEntries(
          Object.entries(FILTERS).map(([name, q]) => [
            `optimade ${name}`,
            `/optimade/v1/structures?page_limit=20&${q}`,
          ]),
        ),
      };
      for (const [name, path] of Object.entries(paths)) {
        load[name] = await runDrive({
          url: base,
          method: 'GET',
          paths: [path],
          connections: CLIENTS,
          duration: LOAD_SECONDS,
        });
        log(
          `${name} at ${CLIENTS} clients: ${load[name].rps.toFixed(0)} req/s, p50 ${load[name].p50} ms, errors ${load[name].errors}`,
        );
      }
      results.at16Clients = load;
    });
  });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${out}`);
}
