/**
 * `npm run bench -- --search-portal N [--nodes K]`: search over a portal of N generated archives of K nodes each
 * (different seeds, so every archive has its own copy and index). Reports what issue #56's targets are about:
 * the index's cost beside the extraction (CPU time and size, on the first archives), a search's p50 and p99 at 16
 * clients over a mix of searches once indexed (as people repeat them, other pages of them, and searches never
 * asked before: the indexes' own words, alone, two by two and with a type), the process tree's memory and open
 * files after that load, and how long a source added to the watched folder takes to be found (a removed one: to
 * be gone).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { generateArchive } from '../generate/index.js';
import { buildIndex } from '../search/index-build.js';
import { openArchive } from '../storage/index.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import { serve, stop, treeCost } from './portal.js';

export interface SearchPortalOptions {
  archives: number;
  nodes: number;
  out: string;
  /** Seconds of load at 16 clients. */
  seconds?: number;
}

const CLIENTS = 16;
/** Archives whose extraction and index are timed apart. */
const TIMED = 3;

/** A mix of what people search for: words, formulas, elements, types, states, UUID prefixes. */
const SEARCHES = [
  'q=Si',
  'q=GaAs',
  'q=Si%20O',
  'elements=Si,O&type=structure',
  'type=structure',
  'state=failed',
  'type=calcjob&state=finished',
  'q=bands',
  'nelements=2',
  'q=0a1b',
  'q=relax&type=workchain',
  '',
];

/** Types searches never asked before are narrowed to (or not). */
const NEW_TYPES = ['', 'structure', 'calcjob', 'workchain', 'workflow', 'dict', 'code', 'bands', 'cif'];

/**
 * Searches none of which was asked before: each word of an index's vocabulary and each two of them, alone and
 * with each type, in an order that mixes them (the same in every run).
 */
function neverAsked(cacheDir: string): string[] {
  const index = readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).find((f) =>
    f.endsWith('.search'),
  );
  if (index === undefined) throw new Error(`no search index under ${cacheDir}`);
  const db = new BetterSqlite3(join(cacheDir, index), { readonly: true });
  let terms: string[];
  try {
    db.exec("CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab(main, 'words', 'row')");
    terms = db.prepare('SELECT term FROM temp.vocabulary ORDER BY doc DESC, term').pluck().all() as string[];
  } finally {
    db.close();
  }
  const out = NEW_TYPES.flatMap((type) => terms.map((t) => `q=${t}${type === '' ? '' : `&type=${type}`}`));
  for (const type of NEW_TYPES) {
    for (const a of terms) {
      for (const b of terms) if (a < b) out.push(`q=${a}%20${b}${type === '' ? '' : `&type=${type}`}`);
    }
  }
  // A fixed shuffle (a linear congruential generator), so that runs compare.
  let seed = 56;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN) * 10) / 10;
};

async function searchJson(port: number, query: string): Promise<{ total: number; warnings: string[] }> {
  const res = await fetch(`http://127.0.0.1:${port}/search/?${query}`);
  if (res.status !== 200) throw new Error(`/search/?${query} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { total: number; warnings: string[] };
}

/** The extraction's CPU time and the index's, and the copy's size and the index's, of one archive. */
async function indexCost(archive: string, cacheDir: string) {
  let since = process.cpuUsage();
  const backend = await openArchive(archive, { cacheDir });
  const extractionMs = cpuMs(since);
  const copy = (backend.db as SqlitePool).file;
  await backend.close();
  const index = join(cacheDir, 'timed.search');
  since = process.cpuUsage();
  buildIndex(copy, index);
  const indexMs = cpuMs(since);
  const sizes = { copy: statSync(copy).size, index: statSync(index).size };
  rmSync(index);
  return { extractionMs, indexMs, ...sizes };
}

export async function searchPortalBench(options: SearchPortalOptions) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const root = join(defaultCacheDir(), 'bench-search');
  const made = join(root, `archives-${options.nodes}`);
  mkdirSync(made, { recursive: true });
  const folder = join(root, `portal-${options.archives}`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  log(`search over a portal of ${options.archives} archives of ${options.nodes} nodes each`);
  const archiveOf = async (i: number) => {
    const file = join(made, `set-${String(i).padStart(5, '0')}.aiida`);
    if (!existsSync(file)) await generateArchive({ nodes: options.nodes, out: file, seed: i + 1 });
    return file;
  };
  for (let i = 0; i < options.archives; i++) copyFileSync(await archiveOf(i), join(folder, `set-${i}.aiida`));
  const extra = await archiveOf(options.archives);

  const timedDir = join(root, 'timed-cache');
  const costs: Awaited<ReturnType<typeof indexCost>>[] = [];
  for (let i = 0; i < Math.min(TIMED, options.archives); i++) {
    rmSync(timedDir, { recursive: true, force: true });
    costs.push(await indexCost(await archiveOf(i), timedDir));
  }
  rmSync(timedDir, { recursive: true, force: true });
  const sum = (key: 'extractionMs' | 'indexMs' | 'copy' | 'index') => costs.reduce((s, c) => s + c[key], 0);

  const cacheDir = join(root, `cache-${options.archives}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const served = await serve([folder, '--watch-interval', '1'], cacheDir);
  let result;
  try {
    // Every source opened and indexed, as the first searches do.
    // Each serving process learns its sources: several answers in a row without a source being indexed.
    const indexStarted = performance.now();
    for (let quiet = 0; quiet < 6;) {
      const pending = (await searchJson(served.port, 'per_page=1')).warnings.some((w) =>
        w.includes('being indexed'),
      );
      quiet = pending ? 0 : quiet + 1;
      if (pending) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const indexedMs = performance.now() - indexStarted;

    // One client alone: what a search costs without waiting for others, asked first, then asked again.
    const first: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < 3 * SEARCHES.length; i++) {
      const started = performance.now();
      await searchJson(served.port, SEARCHES[i % SEARCHES.length]!);
      (i < SEARCHES.length ? first : again).push(performance.now() - started);
    }

    // 16 clients: the mix as people repeat it (answers kept), then every search a new one (per_page differs).
    const load = async (query: (i: number) => string) => {
      const times: number[] = [];
      const end = Date.now() + (options.seconds ?? 20) * 1000;
      let failures = 0;
      let n = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (Date.now() < end) {
            const started = performance.now();
            const res = await fetch(`http://127.0.0.1:${served.port}/search/?${query(n++)}`);
            await res.arrayBuffer();
            times.push(performance.now() - started);
            if (res.status !== 200) failures++;
          }
        }),
      );
      return { times, failures };
    };
    const repeated = await load((i) => SEARCHES[i % SEARCHES.length]!);
    // Other pages of the mix (2 to 6, with 1 to 99 results a page): none asked before, until 5,940 of them.
    const paged = await load((i) => {
      const k = Math.floor(i / SEARCHES.length);
      return `${SEARCHES[i % SEARCHES.length]}&page=${2 + (k % 5)}&per_page=${1 + (Math.floor(k / 5) % 99)}`;
    });
    const never = neverAsked(cacheDir);
    const fresh = await load((i) => never[i % never.length]!);
    const cost = treeCost(served.child.pid!);

    // A new archive in the watched folder: searchable when?
    const added = performance.now();
    copyFileSync(extra, join(folder, 'newcomer.aiida'));
    while (
      (
        await fetch(`http://127.0.0.1:${served.port}/search/?source=newcomer&per_page=1`).then((r) =>
          r.status === 200 ? r.json() : { total: 0 },
        )
      ).total === 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const addedMs = performance.now() - added;
    const removed = performance.now();
    rmSync(join(folder, 'newcomer.aiida'));
    while ((await fetch(`http://127.0.0.1:${served.port}/search/?source=newcomer`)).status === 200) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const removedMs = performance.now() - removed;

    result = {
      archives: options.archives,
      nodesEach: options.nodes,
      indexCpuShareOfExtraction: Math.round((100 * sum('indexMs')) / sum('extractionMs')) / 100,
      indexShareOfCopySize: Math.round((100 * sum('index')) / sum('copy')) / 100,
      firstIndexingOfAllMs: Math.round(indexedMs),
      aloneFirstP50Ms: p(first, 0.5),
      aloneFirstMaxMs: p(first, 1),
      aloneAgainP50Ms: p(again, 0.5),
      searches: repeated.times.length,
      failures: repeated.failures,
      searchP50Ms: p(repeated.times, 0.5),
      searchP99Ms: p(repeated.times, 0.99),
      otherPages: paged.times.length,
      otherPagesFailures: paged.failures,
      otherPagesP50Ms: p(paged.times, 0.5),
      otherPagesP99Ms: p(paged.times, 0.99),
      newSearches: fresh.times.length,
      newSearchesAvailable: never.length,
      newFailures: fresh.failures,
      newSearchP50Ms: p(fresh.times, 0.5),
      newSearchP99Ms: p(fresh.times, 0.99),
      rssMb: cost.rssMb,
      openFiles: cost.openFiles,
      addedSearchableMs: Math.round(addedMs),
      removedGoneMs: Math.round(removedMs),
    };
  } finally {
    await stop(served);
    rmSync(folder, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
  log(
    [
      `  index beside extraction   ${Math.round(result.indexCpuShareOfExtraction * 100)} % of its CPU time, ${Math.round(result.indexShareOfCopySize * 100)} % of the copy's size (first ${costs.length} archives)`,
      `  all sources indexed in    ${result.firstIndexingOfAllMs} ms (extracted at their first search)`,
      `  search, one client        asked first p50 ${result.aloneFirstP50Ms} ms (slowest ${result.aloneFirstMaxMs} ms), asked again p50 ${result.aloneAgainP50Ms} ms`,
      `  search at ${CLIENTS} clients      p50 ${result.searchP50Ms} ms, p99 ${result.searchP99Ms} ms (${result.searches} searches of the mix, ${result.failures} not 200)`,
      `  other pages of the mix    p50 ${result.otherPagesP50Ms} ms, p99 ${result.otherPagesP99Ms} ms (${result.otherPages} searches, ${result.otherPagesFailures} not 200)`,
      `  every search new          p50 ${result.newSearchP50Ms} ms, p99 ${result.newSearchP99Ms} ms (${result.newSearches} searches of ${result.newSearchesAvailable} never asked, ${result.newFailures} not 200)`,
      `  after the load            ${result.rssMb} MB RSS, ${result.openFiles} open files`,
      `  added source searchable   after ${result.addedSearchableMs} ms; removed one gone after ${result.removedGoneMs} ms`,
    ].join('\n'),
  );
  writeFileSync(options.out, JSON.stringify(result, null, 1));
  return result;
}
