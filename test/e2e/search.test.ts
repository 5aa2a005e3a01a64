/**
 * The search over every source in the explorer, on a portal (`quarry serve FOLDER`) of the rich archive and two
 * generated ones, in Chromium at 1366×900 and 390×844: the root page names what is served, puts the search box
 * before a sortable table of the sources with each source's figures as the server's index has them; a search is
 * a link (`/search?q=...&elements=...`) that survives a reload, shows the server's total, narrows by the facets
 * and the periodic table, and each result opens the node in its own source; a source's pages search every source
 * or, switched, that source only. Every view is axe-clean.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { browserMissing, ensureBuilt, launchBrowser, repoRoot, screenshot, watchedPage } from './support.js';
import { richFile } from '../conformance/corpus.js';
import { smallArchive, tempDir } from '../helpers.js';
import { serveProcesses, type Serving } from '../support/serving.js';

/** The search API (src/search/, docs/search.md) this explorer is a client of, where this tree has it. */
const searchServed = existsSync(join(repoRoot, 'src/search/index.ts'));
const missing = browserMissing() ?? (searchServed ? undefined : 'no search API (src/search/) in this tree');
const SOURCES = ['alpha', 'rich', 'small'];
const VIEWPORTS = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

interface Figures {
  name: string;
  indexed: boolean;
  nodes: number | null;
  structures: number | null;
  processes: number | null;
  export_version: string | null;
  aiida_version: string | null;
}
interface Answer {
  total: number;
  results: { source: string; uuid: string; formula: string | null; explorer_url: string }[];
}

describe.skipIf(missing !== undefined)('the search over every source in the explorer', () => {
  let serving: Serving | undefined;
  let base: string;
  let browser: Browser;
  let figures: Figures[];
  const json = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${base}${path}`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    ensureBuilt();
    const folder = tempDir('quarry-search-explorer-');
    copyFileSync(richFile('rich.aiida'), join(folder, 'rich.aiida'));
    copyFileSync(await smallArchive(150, 6), join(folder, 'small.aiida'));
    copyFileSync(await smallArchive(90, 12), join(folder, 'alpha.aiida'));
    [serving, browser] = await Promise.all([serveProcesses(folder, 1), launchBrowser()]);
    base = `http://127.0.0.1:${serving.port}`;
    // The sources are indexed in the background once served: the figures are there once each is.
    const deadline = Date.now() + 90_000;
    for (;;) {
      figures = (await json<{ sources: Figures[] }>('/search/sources')).sources;
      if (figures.length === SOURCES.length && figures.every((f) => f.indexed)) break;
      if (Date.now() > deadline) throw new Error(`not indexed in time: ${JSON.stringify(figures)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 150_000);
  afterAll(async () => {
    await browser?.close();
    serving?.server.kill('SIGTERM');
  });

  /** How far the page is wider than its window (0 when it does not scroll sideways). */
  const sideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const axeClean = async (page: Page, what: string) =>
    expect(await seriousViolations(page), what).toEqual([]);

  for (const viewport of VIEWPORTS) {
    it(`the root page at ${viewport.width}×${viewport.height}: a heading, the search box, the sources' figures, sortable`, async () => {
      const watched = await watchedPage(browser, { viewport });
      const { page } = watched;
      try {
        await page.goto(`${base}/`);
        const rows = page.locator('table.sources tbody tr');
        await expect.poll(() => rows.count()).toBe(SOURCES.length);
        const heading = await page.getByRole('heading', { level: 1 }).textContent();
        expect(heading).not.toMatch(/http|api\/v4/);
        // The search box comes before the table.
        const box = page.locator('main form.search-all input[type="search"]');
        expect(await box.isVisible()).toBe(true);
        const before = await page.evaluate(() => {
          const input = document.querySelector('main form.search-all');
          const table = document.querySelector('main table.sources');
          return input !== null && table !== null && !!(input.compareDocumentPosition(table) & 4);
        });
        expect(before).toBe(true);
        for (const f of figures) {
          const row = page.locator(`tr[data-source="${f.name}"]`);
          const shown = (figure: string) => row.locator(`[data-figure="${figure}"]`).textContent();
          expect(await shown('nodes')).toBe(f.nodes!.toLocaleString('en-US'));
          expect(await shown('structures')).toBe(f.structures!.toLocaleString('en-US'));
          expect(await shown('processes')).toBe(f.processes!.toLocaleString('en-US'));
          expect(await shown('export-version')).toBe(f.export_version ?? '—');
          expect(await shown('aiida-version')).toBe(f.aiida_version ?? '—');
          expect(await row.locator('a').first().getAttribute('href')).toBe(`/${f.name}/`);
        }
        const names = () => rows.evaluateAll((all) => all.map((r) => r.getAttribute('data-source')));
        expect(await names()).toEqual([...SOURCES]);
        // Sorted by nodes, largest first, then the other way; the column says so.
        await page.getByRole('button', { name: /^Nodes/ }).click();
        const byNodes = [...figures].sort((a, b) => b.nodes! - a.nodes!).map((f) => f.name);
        await expect.poll(names).toEqual(byNodes);
        expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Nodes');
        await page.getByRole('button', { name: /^Nodes/ }).click();
        await expect.poll(names).toEqual([...byNodes].reverse());
        // The order is in the address: a reload keeps it.
        expect(page.url()).toContain('sort=nodes');
        await page.reload();
        await expect.poll(names).toEqual([...byNodes].reverse());
        await axeClean(page, `root ${viewport.name}`);
        expect(await sideways(page), 'the root page scrolls sideways').toBe(0);
        await screenshot(page, `search-root-${viewport.name}`, { fullPage: true });
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it(`a search at ${viewport.width}×${viewport.height}: a link that survives a reload, facets, and results that open their node`, async () => {
      const watched = await watchedPage(browser, { viewport });
      const { page } = watched;
      try {
        const some = await json<Answer>('/search/?type=structure&per_page=100');
        const formula = some.results.find(
          (r) => r.formula !== null && /^[A-Z][a-z]?\d*[A-Z]/.test(r.formula),
        )!.formula!;
        const element = /^[A-Z][a-z]?/.exec(formula)![0];
        await page.goto(`${base}/`);
        const box = page.locator('main form.search-all input[type="search"]');
        await box.fill(formula);
        await box.press('Enter');
        await page.waitForURL(/\/search\?q=/);
        const api = await json<Answer>(`/search/?q=${encodeURIComponent(formula)}`);
        expect(api.total).toBeGreaterThan(0);
        const total = page.locator('[data-figure="search-total"]');
        await expect.poll(() => total.textContent()).toBe(api.total.toLocaleString('en-US'));

        // An element of the periodic table narrows it: all of the chosen ones, as the API counts them.
        await page.locator(`.periodic button[data-element="${element}"]`).click();
        await page.waitForURL(new RegExp(`elements=${element}(&|$)`));
        const narrowed = await json<Answer>(`/search/?q=${encodeURIComponent(formula)}&elements=${element}`);
        await expect.poll(() => total.textContent()).toBe(narrowed.total.toLocaleString('en-US'));
        expect(
          await page.locator(`.periodic button[data-element="${element}"]`).getAttribute('aria-pressed'),
        ).toBe('true');
        await axeClean(page, `search ${viewport.name}`);
        expect(await sideways(page), 'the search page scrolls sideways').toBe(0);
        await screenshot(page, `search-results-${viewport.name}`, { fullPage: true });

        // A reload (or the link, shared) shows the same search.
        const link = page.url();
        await page.reload();
        await expect.poll(() => total.textContent()).toBe(narrowed.total.toLocaleString('en-US'));
        expect(page.url()).toBe(link);
        expect(await page.locator('main form.search-all input[type="search"]').inputValue()).toBe(formula);

        // A facet of type, then of state: the address and the total follow.
        await page.goto(`${base}/search?state=finished&type=calcjob`);
        const finished = await json<Answer>('/search/?state=finished&type=calcjob');
        await expect.poll(() => total.textContent()).toBe(finished.total.toLocaleString('en-US'));
        await page.getByLabel('Process state').selectOption('failed');
        await page.waitForURL(/state=failed/);
        const failed = await json<Answer>('/search/?state=failed&type=calcjob');
        await expect.poll(() => total.textContent()).toBe(failed.total.toLocaleString('en-US'));

        // Each result opens the node in its own source's explorer.
        await page.goto(link);
        const first = page.locator('ol.results li a.result-title').first();
        await first.waitFor();
        const href = await first.getAttribute('href');
        expect(href).toBe(narrowed.results[0]!.explorer_url);
        await first.click();
        const { source, uuid } = narrowed.results[0]!;
        await page.waitForURL(`${base}/${source}/nodes/${uuid}`);
        await page.locator('[data-field="uuid"]', { hasText: uuid }).waitFor();
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }

  it("a source's pages search every source, or that source only when switched", async () => {
    const watched = await watchedPage(browser, { viewport: { width: 1366, height: 900 } });
    const { page } = watched;
    try {
      // An element of a structure of small that other sources have too: its symbol is a word of the search.
      const own = await json<Answer & { facets: { elements: Record<string, number> } }>(
        '/search/?source=small&type=structure',
      );
      let word: string | undefined;
      for (const symbol of Object.keys(own.facets.elements)) {
        const found = await json<{ facets: { source: Record<string, number> } }>(`/search/?q=${symbol}`);
        if (Object.keys(found.facets.source).length > 1 && found.facets.source.small) word = symbol;
        if (word !== undefined) break;
      }
      expect(word).toBeDefined();
      await page.goto(`${base}/small/nodes`);
      const header = page.locator('header form.search-all');
      await header.locator('input[type="search"]').fill(word!);
      await header.locator('input[type="search"]').press('Enter');
      await page.waitForURL(`${base}/small/search?q=${word}`);
      const every = await json<Answer>(`/search/?q=${word}`);
      const total = page.locator('[data-figure="search-total"]');
      await expect.poll(() => total.textContent()).toBe(every.total.toLocaleString('en-US'));
      expect(new Set(every.results.map((r) => r.source)).size).toBeGreaterThan(1);

      await page.goto(`${base}/small/nodes`);
      await header.locator('input[type="search"]').fill(word!);
      await header.getByLabel('only small').check();
      await header.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(`${base}/small/search?q=${word}&source=small`);
      const narrowed = await json<Answer>(`/search/?q=${word}&source=small`);
      await expect.poll(() => total.textContent()).toBe(narrowed.total.toLocaleString('en-US'));
      const sources = await page.locator('ol.results .result-source').allTextContents();
      expect(sources.length).toBeGreaterThan(0);
      expect(new Set(sources)).toEqual(new Set(['small']));
      await axeClean(page, 'search from a source');
      // The header's box on a phone leaves the page as wide as the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/small/nodes`);
      await header.waitFor();
      expect(await sideways(page), 'a source page with the header box scrolls sideways').toBe(0);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
