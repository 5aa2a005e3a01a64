/**
 * The explorer's views in Chromium, first visits (a fresh browser context each: no cached assets, no kept
 * answers in the page): `npm run bench -- --views --nodes N` times each view on the generated archive of N nodes
 * until its first content shows (the view's own data: a figure, a table row, the node's heading) and until nothing
 * in it is loading any more; `--search S` times a chemical search (`SiO2`, `Si O`) through the source's OPTIMADE
 * endpoint on an archive of S structures. Target (issue 27): first content within 1 s at 10^6 nodes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { defaultCacheDir } from '../storage/index.js';
import { BENCH_KEPT_FILE } from './backend.js';
import { child } from './child.js';
import { structuresArchive } from './optimade-data.js';
import { launchChromium } from './page-load.js';
import { loadAverage } from './process-table.js';
import { untilReady } from './pg-scale.js';
import { median } from './median.js';

/** A view to time: its path and a test, run in the page, of its first content being on screen. */
export interface TimedView {
  name: string;
  path: string;
  /** A function body evaluated in the page: true once the view's first content shows. */
  ready: string;
  /**
   * What a reader does next on the view (a click), timed on its own from the action until `ready`, given what the
   * action chose, is true in the page.
   */
  then?: { name: string; act(page: Page): Promise<string>; ready: string };
}

export interface ViewTiming {
  name: string;
  path: string;
  /** The unmeasured first visit's first content: the server answers its questions for the first time. */
  coldFirstContentMs: number;
  /** Milliseconds from navigation to first content, one per measured visit. */
  firstContentMs: number[];
  /** Milliseconds until nothing in the main area is loading. */
  settledMs: number[];
  medianFirstContentMs: number;
  medianSettledMs: number;
}

const TARGET_MS = 1000;

const hasDigits = (selector: string) =>
  `return /\\d/.test(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '')`;
const allHaveDigits = (selectors: string[]) =>
  `return ${JSON.stringify(selectors)}.every((s) => /\\d/.test(document.querySelector(s)?.textContent ?? ''))`;
const exists = (selector: string) => `return document.querySelector(${JSON.stringify(selector)}) !== null`;

/**
 * Times each view `runs` times after one unmeasured visit (the server's first answer to a question it keeps, a
 * summary or a count, is the server's warm-up, measured by the main bench, not the page's).
 */
export async function timeViews(
  browser: Browser,
  base: string,
  views: TimedView[],
  runs: number,
  log: (line: string) => void,
): Promise<ViewTiming[]> {
  const out: ViewTiming[] = [];
  for (const view of views) {
    const firstContentMs: number[] = [];
    const settledMs: number[] = [];
    const thenMs: number[] = [];
    let cold = 0;
    let coldThen = 0;
    for (let run = -1; run < runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
      try {
        const page = await context.newPage();
        const started = Date.now();
        await page.goto(`${base}${view.path}`, { waitUntil: 'commit' });
        // The view's own test, run in the page.
        await page.waitForFunction(new Function(view.ready) as () => boolean, null, { timeout: 60_000 });
        const first = Date.now() - started;
        await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0, null, {
          timeout: 60_000,
        });
        const settled = Date.now() - started;
        const failed = await page.locator('main [role="alert"]').allTextContents();
        if (failed.length > 0) throw new Error(`${view.name} (${view.path}) shows: ${failed.join(' | ')}`);
        let next = 0;
        if (view.then) {
          const acted = Date.now();
          const chosen = await view.then.act(page);
          await page.waitForFunction(
            new Function('chosen', view.then.ready) as (c: string) => boolean,
            chosen,
            {
              timeout: 60_000,
            },
          );
          next = Date.now() - acted;
        }
        if (run < 0) {
          cold = first;
          coldThen = next;
        } else {
          firstContentMs.push(first);
          settledMs.push(settled);
          thenMs.push(next);
        }
      } finally {
        await context.close();
      }
    }
    const timings: ViewTiming[] = [
      {
        name: view.name,
        path: view.path,
        coldFirstContentMs: cold,
        firstContentMs,
        settledMs,
        medianFirstContentMs: median(firstContentMs) ?? 0,
        medianSettledMs: median(settledMs) ?? 0,
      },
    ];
    // The answer to the reader's action is its own view: its first content is timed from the action.
    if (view.then)
      timings.push({
        name: view.then.name,
        path: view.path,
        coldFirstContentMs: coldThen,
        firstContentMs: thenMs,
        settledMs: thenMs,
        medianFirstContentMs: median(thenMs) ?? 0,
        medianSettledMs: median(thenMs) ?? 0,
      });
    for (const timing of timings) {
      log(
        `${timing.name.padEnd(30)} first content ${String(timing.medianFirstContentMs).padStart(5)} ms` +
          `${timing.medianFirstContentMs > TARGET_MS ? ' (over 1 s)' : ''}, settled ${timing.medianSettledMs} ms` +
          `  [${timing.firstContentMs.join(', ')}; the server's first answers: ${timing.coldFirstContentMs} ms]`,
      );
      out.push(timing);
    }
  }
  return out;
}

/**
 * A click on a node of the provenance graph other than `except` (the page's own), where cytoscape draws it (its
 * instance is kept on its container); the clicked node's UUID.
 */
async function clickGraphNode(page: Page, except: string): Promise<string> {
  const frame = page.locator('[data-testid="provenance-graph"]');
  await frame.scrollIntoViewIfNeeded();
  const target = await frame.evaluate((element, own) => {
    interface El {
      id(): string;
      data(key: string): unknown;
      renderedPosition(): { x: number; y: number };
    }
    const cy = (
      element as unknown as { _cyreg: { cy: { nodes(): El[]; width(): number; height(): number } } }
    )._cyreg.cy;
    const inside = ({ x, y }: { x: number; y: number }) =>
      x > 10 && y > 10 && x < cy.width() - 10 && y < cy.height() - 10;
    const el = cy.nodes().find((n) => !n.data('more') && n.id() !== own && inside(n.renderedPosition()));
    return el ? { id: el.id(), ...el.renderedPosition() } : undefined;
  }, except);
  if (!target) throw new Error('the provenance graph drew no node to click');
  await frame.click({ position: { x: target.x, y: target.y } });
  return target.id;
}

async function api<T>(base: string, path: string): Promise<T> {
  const response = await fetch(`${base}/api/v4${path}`);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: T }).data;
}

interface TypeCount {
  full_type: string;
  subspaces: TypeCount[];
}

/** Every view of the explorer on this server's data: lists, one node of each node class, groups, computers. */
async function viewsOf(base: string): Promise<TimedView[]> {
  const views: TimedView[] = [
    { name: 'home', path: '/', ready: hasDigits('[data-figure="total"]') },
    { name: 'nodes (newest first)', path: '/nodes', ready: exists('main tbody tr') },
    { name: 'nodes of a type', path: '', ready: exists('main tbody tr') },
    { name: 'label search', path: '/nodes?label=calc', ready: hasDigits('[data-figure="list-total"]') },
  ];
  const leaves: string[] = [];
  const walk = (t: TypeCount) => (t.subspaces.length ? t.subspaces.forEach(walk) : leaves.push(t.full_type));
  walk(await api<TypeCount>(base, '/nodes/full_types_count/'));
  views[2]!.path = `/nodes?type=${encodeURIComponent(leaves[0]!)}`;
  const seen = new Set<string>();
  for (const fullType of leaves) {
    const nodeClass = fullType.split('|')[0]!.split('.').filter(Boolean).pop() ?? fullType;
    if (seen.has(nodeClass)) continue;
    seen.add(nodeClass);
    const { nodes } = await api<{ nodes: { uuid: string }[] }>(
      base,
      `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent(`"${fullType}"`)}`,
    );
    if (nodes[0])
      views.push({ name: `node: ${nodeClass}`, path: `/nodes/${nodes[0].uuid}`, ready: exists('main h1') });
  }
  views.push(...(await scienceViews(base)));
  const { groups } = await api<{ groups: { uuid: string }[] }>(base, '/groups/?orderby=id&limit=1');
  const { computers } = await api<{ computers: { uuid: string }[] }>(base, '/computers/?orderby=id&limit=1');
  views.push(
    { name: 'groups', path: '/groups', ready: exists('main tbody tr') },
    ...(groups[0] ? [{ name: 'group', path: `/groups/${groups[0].uuid}`, ready: exists('main h1') }] : []),
    { name: 'computers', path: '/computers', ready: exists('main tbody tr') },
    ...(computers[0]
      ? [{ name: 'computer', path: `/computers/${computers[0].uuid}`, ready: exists('main h1') }]
      : []),
    { name: 'users', path: '/users', ready: exists('main tbody tr') },
  );
  return views;
}

const graphDrawn =
  `document.querySelector('[data-testid="provenance-graph"]')?.getAttribute('aria-busy') === 'false' && ` +
  `document.querySelectorAll('[data-testid="graph-nodes"] li').length > 1`;

/**
 * The views of provenance and chemistry (issue 34): the home page's shortcuts with their numbers, a calculation's
 * page with its Inputs table, its provenance graph and the details of a node clicked in it, the failed processes,
 * and the node list filtered by elements, their number and a formula (asked of the OPTIMADE endpoint).
 */
async function scienceViews(base: string): Promise<TimedView[]> {
  const views: TimedView[] = [
    {
      name: 'home shortcuts',
      path: '/',
      // Every number, the failed processes' too (a querybuilder count of its own).
      ready: allHaveDigits([
        '[data-figure="shortcut-data.core.structure."]',
        '[data-figure="shortcut-data.core.array.bands."]',
        '[data-figure="shortcut-process.workflow."]',
        '[data-figure="shortcut-failed"]',
      ]),
    },
    { name: 'failed processes', path: '/nodes?state=failed', ready: exists('main tbody tr') },
  ];
  const { nodes } = await api<{ nodes: { uuid: string }[] }>(
    base,
    `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent('"process.calculation.calcjob.%|%"')}`,
  );
  const calc = nodes[0]?.uuid;
  if (calc) {
    views.push(
      { name: 'process inputs', path: `/nodes/${calc}`, ready: exists('[data-testid="inputs"] tbody tr') },
      {
        name: 'provenance graph',
        path: `/nodes/${calc}`,
        // Its neighbours drawn.
        ready: `return ${graphDrawn}`,
        then: {
          name: 'graph: details of a click',
          act: (page) => clickGraphNode(page, calc),
          ready: `return document.querySelector('[data-testid="graph-details"]')?.getAttribute('data-uuid') === chosen`,
        },
      },
    );
  }
  // A structure the data has, as OPTIMADE describes it (its first answer builds the source's side table).
  const response = await fetch(
    `${base}/optimade/v1/structures?page_limit=1&response_fields=elements,nelements,chemical_formula_reduced`,
  );
  if (!response.ok) throw new Error(`OPTIMADE answered ${response.status}: is it served?`);
  const found = (
    (await response.json()) as {
      data: { attributes: { elements: string[]; nelements: number; chemical_formula_reduced: string } }[];
    }
  ).data[0]?.attributes;
  if (found) {
    const list = (name: string, params: string) => ({
      name,
      path: `/nodes?${params}`,
      ready: exists('main tbody tr'),
    });
    views.push(
      list('nodes by element', `elements=${found.elements[0]}`),
      list(
        'nodes by elements and number',
        `elements=${found.elements.join(',')}&nelements=${found.nelements}`,
      ),
      list('nodes by formula', `formula=${found.chemical_formula_reduced}`),
    );
  }
  return views;
}

/** Serves `file` (as the main bench does) and runs `measure` against it with a browser. */
async function withServer<T>(
  file: string,
  processes: number,
  measure: (base: string, browser: Browser) => Promise<T>,
): Promise<T> {
  const here = fileURLToPath(new URL('.', import.meta.url));
  // As `quarry serve` does: answers kept once for the machine, in a file every serving process opens (else each
  // process would answer the unmeasured visit's costly questions again in a measured one).
  const temp = mkdtempSync(join(tmpdir(), 'quarry-views-'));
  process.env[BENCH_KEPT_FILE] = join(temp, 'kept.sqlite');
  const server = await child([join(here, 'serve-bench.js'), String(processes), file]);
  const base = `http://127.0.0.1:${server.port}`;
  let browser: Browser | undefined;
  try {
    // The node-wide summaries are computed ahead; the page is timed against a ready server.
    await untilReady(base);
    browser = await launchChromium();
    if (!browser) throw new Error('no Chromium to measure the explorer with');
    return await measure(base, browser);
  } finally {
    await browser?.close();
    if (server.proc.exitCode === null && server.proc.signalCode === null) {
      // Gone before its kept answers' file is removed.
      const exited = new Promise((resolve) => server.proc.once('exit', resolve));
      server.proc.kill();
      await exited;
    }
    delete process.env[BENCH_KEPT_FILE];
    rmSync(temp, { recursive: true, force: true });
  }
}

export async function viewsBench(options: {
  file: string;
  nodes: number;
  processes: number;
  runs: number;
  out: string;
  /** Only the views whose name contains this. */
  only?: string;
}) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const start = loadAverage();
  log(`explorer views on ${options.nodes} nodes (Chromium, first visits, median of ${options.runs}):`);
  const views = await withServer(options.file, options.processes, async (base, browser) => {
    const all = await viewsOf(base);
    const chosen = all.filter((v) => options.only === undefined || v.name.includes(options.only));
    if (chosen.length === 0) throw new Error(`--only ${options.only}: no view has that in its name`);
    return timeViews(browser, base, chosen, options.runs, log);
  });
  const over = views.filter((v) => v.medianFirstContentMs > TARGET_MS).map((v) => v.name);
  log(over.length ? `over 1 s: ${over.join(', ')}` : 'every view shows its first content within 1 s');
  const result = { nodes: options.nodes, loadAverage: { start, end: loadAverage() }, views };
  writeFileSync(options.out, `${JSON.stringify(result, null, 1)}\n`);
  log(`wrote ${options.out}`);
}

/** Chemical searches as a reader types them in the explorer's search box. */
const SEARCHES = ['SiO2', 'Si O', 'Fe2O3', 'Ga N'];

export async function searchBench(options: {
  structures: number;
  processes: number;
  runs: number;
  out: string;
}) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const start = loadAverage();
  const file = await structuresArchive(options.structures, join(defaultCacheDir(), 'bench'), log);
  log(
    `chemical search on ${options.structures} structures (Chromium, first visits, median of ${options.runs}):`,
  );
  const searches = await withServer(file, options.processes, async (base, browser) => {
    // The first chemical question builds the OPTIMADE side table of the source: timed on its own.
    const started = Date.now();
    const first = await fetch(`${base}/optimade/v1/structures?page_limit=1`);
    await first.text();
    if (!first.ok) throw new Error(`OPTIMADE answered ${first.status}: is it served?`);
    const sideTableMs = Date.now() - started;
    log(`first OPTIMADE answer (its side table built): ${sideTableMs} ms`);
    const views = SEARCHES.map((text) => ({
      name: `search "${text}"`,
      path: `/nodes?label=${encodeURIComponent(text)}`,
      ready: hasDigits('[data-figure="structure-total"]'),
    }));
    return { sideTableMs, views: await timeViews(browser, base, views, options.runs, log) };
  });
  const result = {
    structures: options.structures,
    loadAverage: { start, end: loadAverage() },
    ...searches,
  };
  writeFileSync(options.out, `${JSON.stringify(result, null, 1)}\n`);
  log(`wrote ${options.out}`);
}
