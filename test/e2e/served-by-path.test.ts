/**
 * The explorer opened under a source's own path (`/<name>/`, as a portal serves each source) and a home page
 * that lists the portal's sources from `GET /sources/`. The browser's requests under `/mc3d/` are answered by
 * `quarry serve` at its root (the same answers a portal gives at a source's path), and the index by the
 * contract's JSON, so that the explorer's side is tested whatever serves it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type ApiNode } from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();

describe.skipIf(missing !== undefined)('the explorer under a source path, with an index of sources', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  it('every request of a view under /mc3d/ goes to /mc3d/api/v4/, and its links stay under /mc3d/', async () => {
    const watched = await watchedPage(browser);
    const { page } = watched;
    const asked: string[] = [];
    await page.route(`${served.base}/mc3d/**`, async (route) => {
      const url = new URL(route.request().url());
      asked.push(url.pathname);
      const response = await route.fetch({
        url: `${served.base}${url.pathname.slice('/mc3d'.length)}${url.search}`,
      });
      await route.fulfill({ response });
    });
    try {
      const [node] = (await served.api<{ nodes: ApiNode[] }>('/nodes/?orderby=id&limit=1')).data.nodes;
      await page.goto(`${served.base}/mc3d/nodes/${node!.uuid}`);
      await expect.poll(() => page.locator('[data-field="uuid"]').textContent()).toBe(node!.uuid);
      const api = asked.filter((p) => p.includes('/api/v4/'));
      expect(api.length).toBeGreaterThan(0);
      for (const path of api) expect(path).toMatch(/^\/mc3d\/api\/v4\//);
      const links = await page
        .locator('header a[href^="/"], main a[href^="/"]')
        .evaluateAll((all) => all.map((a) => a.getAttribute('href')!));
      expect(links.length).toBeGreaterThan(0);
      // Every link of the app stays under the source's path; the API documentation is the server's own page.
      for (const href of links.filter((h) => h !== '/docs')) expect(href).toMatch(/^\/mc3d\//);
      expect(links).toContain('/docs');
      await page.getByRole('link', { name: 'Groups', exact: true }).click();
      await page.waitForURL(`${served.base}/mc3d/groups`);
      await page.locator('main table').waitFor();
      expect(watched.problems).toEqual([]);
    } finally {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await page.context().close();
    }
  });

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
    await page.route(`${served.base}/`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(
        /<script id="quarry-config" type="application\/json">[^<]*<\/script>/,
        `<script id="quarry-config" type="application/json">${JSON.stringify({ api: '/api/v4', root: '', sources: ['a', 'b'] })}</script>`,
      );
      await route.fulfill({ response, body: html });
    });
    await page.route(`${served.base}/sources/**`, async (route) => {
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
      await page.goto(`${served.base}/`);
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
