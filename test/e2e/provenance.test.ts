/**
 * The provenance graph on a hub (the rich archive's most used Code, 87 calculations), on a desktop and a phone
 * screen: each expansion adds a bounded number of neighbours and one "N more" marker; after two expansions the
 * captions are still at least 10 px on screen; the marker opens the paged list of the links left out; the zoom,
 * fit and reset controls work; the page never scrolls sideways.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_LABEL_PX, NEIGHBOURS_PER_DIRECTION } from '../../web/src/by-type/logic/graph.js';
import {
  browserMissing,
  launchBrowser,
  screenshot,
  serveExplorer,
  watchedPage,
  type ApiNode,
} from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();

interface TreeMeta {
  nodes: Array<{ outgoing: ApiNode[] }>;
  metadata: Array<{ total_no_of_outgoings: number }>;
}

describe.skipIf(missing !== undefined)('the provenance graph of a hub (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let hub: { uuid: string; outgoing: number; calcs: ApiNode[] };

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
    const codes = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.code.%|%"')}&limit=100`,
    );
    let best: typeof hub | undefined;
    for (const code of codes.data.nodes) {
      const tree = (await served.api<TreeMeta>(`/nodes/${code.uuid}/links/tree/?out_limit=2&in_limit=0`))
        .data;
      const outgoing = tree.metadata[0]!.total_no_of_outgoings;
      if (!best || outgoing > best.outgoing)
        best = { uuid: code.uuid, outgoing, calcs: tree.nodes[0]!.outgoing };
    }
    hub = best!;
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  for (const viewport of [
    { width: 1366, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`stays readable after two expansions at ${viewport.width}×${viewport.height}, and its "N more" opens the link list`, async () => {
      expect(hub.outgoing).toBeGreaterThan(2 * NEIGHBOURS_PER_DIRECTION);
      const watched = await watchedPage(browser, { viewport });
      const { page } = watched;
      try {
        await page.goto(`${served.base}/nodes/${hub.uuid}`);
        const graph = page.locator('[data-testid="provenance-graph"]');
        const listed = page.locator('[data-testid="graph-nodes"] li');
        await expect.poll(() => listed.count(), { timeout: 20_000 }).toBe(1 + NEIGHBOURS_PER_DIRECTION);
        const more = page.locator('[data-testid="graph-more"] button');
        await expect
          .poll(() => more.first().textContent())
          .toMatch(new RegExp(`^${hub.outgoing - NEIGHBOURS_PER_DIRECTION} more outgoing`));

        // Two expansions (of two calculations), by the list's buttons: each adds at most the bound per direction.
        await page.locator('summary', { hasText: 'Nodes in the graph' }).click();
        for (const round of [1, 2]) {
          const before = await listed.count();
          await page
            .locator('[data-testid="graph-nodes"] li button', { hasText: 'Expand' })
            .nth(round)
            .click();
          await expect
            .poll(() => page.locator('[data-testid="provenance-graph"] ~ .loading').count())
            .toBe(0);
          await expect.poll(() => listed.count()).toBeGreaterThan(before);
          expect((await listed.count()) - before).toBeLessThanOrEqual(2 * NEIGHBOURS_PER_DIRECTION);
        }
        const px = Number(await graph.getAttribute('data-label-px'));
        expect(px).toBeGreaterThanOrEqual(MIN_LABEL_PX);
        // The controls: zoom out stops at the readable size, fit too; zoom in grows.
        const toolbar = page.getByRole('toolbar', { name: 'Graph view' });
        for (let i = 0; i < 5; i++) await toolbar.getByRole('button', { name: 'Zoom out' }).click();
        expect(Number(await graph.getAttribute('data-label-px'))).toBeGreaterThanOrEqual(MIN_LABEL_PX);
        await toolbar.getByRole('button', { name: 'Fit' }).click();
        expect(Number(await graph.getAttribute('data-label-px'))).toBeGreaterThanOrEqual(MIN_LABEL_PX);
        const fitted = Number(await graph.getAttribute('data-label-px'));
        await toolbar.getByRole('button', { name: 'Zoom in' }).click();
        expect(Number(await graph.getAttribute('data-label-px'))).toBeGreaterThan(fitted);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
        await screenshot(page, `provenance-hub-${viewport.width}`);
        await toolbar.getByRole('button', { name: 'Reset' }).click();
        await expect.poll(() => listed.count()).toBe(1 + NEIGHBOURS_PER_DIRECTION);

        // "N more" opens the paged list of the outgoing links, here on the hub's own page.
        await more.first().click();
        await page.waitForURL(/#outgoing$/);
        const rows = page.locator('#outgoing table tbody tr');
        await expect.poll(() => rows.count()).toBe(20);
        expect(await page.locator('#outgoing .pager-where').textContent()).toContain(`of ${hub.outgoing}`);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }
});
