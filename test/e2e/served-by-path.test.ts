/**
 * The explorer of a real portal: `quarry serve FOLDER` (the built CLI) with two archives, each source's explorer
 * at `/<name>/`. The home at the server's root lists the sources from `GET /sources/`; every main view of each
 * source works under its path, asks only that source's API and fails no request. A last test pages and searches
 * an index of many sources (the index answered by the contract's JSON, as a large portal would).
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, ensureBuilt, launchBrowser, watchedPage, type ApiNode } from './support.js';
import { richFile } from '../conformance/corpus.js';
import { smallArchive, tempDir } from '../helpers.js';
import { serveProcesses, type Serving } from '../support/serving.js';

const missing = browserMissing();
const SOURCES = ['rich', 'small'];

describe.skipIf(missing !== undefined)('the explorer of a portal (quarry serve FOLDER)', () => {
  let serving: Serving | undefined;
  let base: string;
  let browser: Browser;
  const api = async <T>(source: string, path: string): Promise<T> => {
    const response = await fetch(`${base}/${source}/api/v4${path}`);
    if (!response.ok) throw new Error(`${source} ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: T }).data;
  };

  beforeAll(async () => {
    ensureBuilt();
    const folder = tempDir('quarry-portal-explorer-');
    const small = await smallArchive(80, 5);
    copyFileSync(richFile('rich.aiida'), join(folder, 'rich.aiida'));
    copyFileSync(small, join(folder, 'small.aiida'));
    [serving, browser] = await Promise.all([serveProcesses(folder, 1), launchBrowser()]);
    base = `http://127.0.0.1:${serving.port}`;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    serving?.server.kill('SIGTERM');
  });

  it("the home at the server's root lists the sources from /sources/, each opening its own explorer", async () => {
    const watched = await watchedPage(browser);
    const { page } = watched;
    // The root page asks for the figures of the search indexes first; a server without search has none.
    watched.expect(/\/search\/sources$/, 404);
    try {
      await page.goto(`${base}/`);
      const rows = page.locator('table.sources tbody tr');
      // The server may be indexing its sources for search (in its first seconds) as the page loads.
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(SOURCES.length);
      const links = await rows.evaluateAll((all) =>
        all.map((r) => r.querySelector('a')!.getAttribute('href')),
      );
      expect(links).toEqual(SOURCES.map((name) => `/${name}/`));
      await rows.nth(1).locator('a').first().click();
      await page.waitForURL(`${base}/small/`);
      const total = (await api<{ total: number }>('small', '/nodes/statistics/')).total;
      await expect.poll(() => page.locator('[data-figure="total"]').textContent()).toBe(String(total));
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  for (const source of SOURCES) {
    it(`every main view of ${source} works at /${source}/, asking only its API, with no failed request`, async () => {
      const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
      const { page } = watched;
      const asked: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.origin === base) asked.push(url.pathname);
      });
      try {
        const [node] = (await api<{ nodes: ApiNode[] }>(source, '/nodes/?orderby=id&limit=1')).nodes;
        const [structure] = (
          await api<{ nodes: ApiNode[] }>(
            source,
            `/nodes/?orderby=id&limit=1&full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}`,
          )
        ).nodes;
        const [group] = (await api<{ groups: { uuid: string; label: string }[] }>(source, '/groups/?limit=1'))
          .groups;
        const views: [string, () => Promise<void>][] = [
          [
            '',
            async () => {
              await page.locator('[data-figure="total"]').filter({ hasText: /\d/ }).waitFor();
              expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(source);
            },
          ],
          ['nodes', () => page.locator('table.nodes tbody tr').first().waitFor()],
          [
            `nodes/${node!.uuid}`,
            () => page.locator('[data-field="uuid"]', { hasText: node!.uuid }).waitFor(),
          ],
          ['groups', () => page.locator('main table tbody tr').first().waitFor()],
        ];
        let entry: string | null = null;
        if (structure) {
          views.push([
            `nodes/${structure.uuid}`,
            async () => {
              entry = await page.locator('[data-field="optimade"]').getAttribute('href');
            },
          ]);
        }
        if (group) {
          views.push([
            `groups/${group.uuid}`,
            () => page.getByRole('heading', { name: group.label }).waitFor(),
          ]);
        }
        for (const [path, shown] of views) {
          await page.goto(`${base}/${source}/${path}`);
          await shown();
          await page.waitForLoadState('networkidle');
          const links = await page
            .locator('header a[href^="/"], main a[href^="/"]')
            .evaluateAll((all) =>
              all.filter((a) => !a.closest('table.sources')).map((a) => a.getAttribute('href')!),
            );
          // Every link of the app stays under the source's path (but those of the portal's list of sources); the
          // API documentation is the server's own page.
          for (const href of links.filter((h) => h !== '/docs'))
            expect(href, path).toMatch(new RegExp(`^/${source}/`));
        }
        if (structure) {
          // The structure page's OPTIMADE entry is that source's, and answers.
          expect(entry).toBe(`${base}/${source}/optimade/v1/structures/${structure.uuid}`);
          expect((await fetch(entry!)).status).toBe(200);
        }
        const apiAsked = asked.filter((p) => p.includes('/api/v4/'));
        expect(apiAsked.length).toBeGreaterThan(0);
        for (const path of apiAsked) expect(path).toMatch(new RegExp(`^/${source}/api/v4/`));
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }

  it('the home page lists the sources of the index and searches them by name', async () => {
    const watched = await watchedPage(browser);
    const { page } = watched;
    const all = Array.from({ length: 45 }, (_, i) => ({
      name: `set-${String(i).padStart(2, '0')}${i % 3 === 0 ? '-oxides' : ''}`,
      kind: 'archive',
      api: `/set-${i}/api/v4/`,
      explorer: `/set-${i}/`,
      optimade: `/set-${i}/optimade/v1/`,
      nodes: 1000 + i,
      aiida_version: '2.6.1',
      open: i % 2 === 0,
    }));
    const queries: string[] = [];
    // A server of several sources: its page names them, so the explorer asks for the index.
    await page.route(`${base}/`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(
        /<script id="quarry-config" type="application\/json">[^<]*<\/script>/,
        `<script id="quarry-config" type="application/json">${JSON.stringify({ api: '/api/v4', root: '', sources: ['a', 'b'] })}</script>`,
      );
      await route.fulfill({ response, body: html });
    });
    // A server without the figures of its sources' search indexes: the root page is the index of /sources/.
    await page.route(`${base}/search/sources`, (route) => route.fulfill({ status: 404, json: {} }));
    watched.expect(/\/search\/sources$/, 404);
    await page.route(`${base}/sources/**`, async (route) => {
      const url = new URL(route.request().url());
      queries.push(url.search);
      const name = url.searchParams.get('name') ?? '';
      const pageNo = Number(url.searchParams.get('page') ?? 1);
      const perpage = Number(url.searchParams.get('perpage') ?? 20);
      const matching = all.filter((s) => s.name.includes(name));
      await route.fulfill({
        json: {
          sources: matching.slice((pageNo - 1) * perpage, pageNo * perpage),
          total: matching.length,
          page: pageNo,
          perpage,
        },
      });
    });
    try {
      await page.goto(`${base}/`);
      const rows = page.locator('table.sources tbody tr');
      await expect.poll(() => rows.count()).toBe(20);
      expect(await rows.first().locator('a').first().getAttribute('href')).toBe('/set-0/');
      await page.getByRole('button', { name: 'Next page' }).first().click();
      await expect.poll(() => rows.first().locator('a').first().textContent()).toBe('set-20');
      await page.getByLabel('Find a source').fill('oxides');
      await page.getByLabel('Find a source').press('Enter');
      await expect.poll(() => rows.count()).toBe(15);
      expect(queries[queries.length - 1]).toContain('name=oxides');
      expect(watched.problems).toEqual([]);
    } finally {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await page.context().close();
    }
  });
});
