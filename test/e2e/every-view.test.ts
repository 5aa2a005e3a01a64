/**
 * Every view of the explorer on a phone (390×844) and a desktop (1366×900) screen, on the rich conformance
 * archive: the page never scrolls sideways (wide tables, graphs and viewers scroll inside themselves), also with
 * every folded part of a node page opened, and nothing failed in the page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewKind } from '../../web/src/by-type/logic/choose.js';
import {
  browserMissing,
  launchBrowser,
  screenshot,
  serveExplorer,
  watchedPage,
  type ApiNode,
} from './support.js';
import { richFile } from '../conformance/corpus.js';
import { seriousViolations } from './axe.js';

const missing = browserMissing();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const SCREENS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1366, height: 900 },
] as const;

/** How far the page is wider than its window (0 when it does not scroll sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Waits until no part of the main area is loading (views, lazy chunks, folded parts just opened). */
async function settled(page: Page) {
  await page.locator('main h1, main [role="alert"]').first().waitFor({ timeout: 20_000 });
  await expect.poll(() => page.locator('main .loading').count(), { timeout: 20_000 }).toBe(0);
}

describe.skipIf(missing !== undefined)('every view fits the screen (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  const views: { name: string; path: string; node?: boolean }[] = [];

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
    views.push(
      { name: 'home', path: '/' },
      { name: 'nodes', path: '/nodes' },
      // A chemical search: the structures found through OPTIMADE above the label matches.
      { name: 'search-formula', path: '/nodes?label=Si2' },
    );
    // One node of each kind of type view, and a node with none.
    interface TypeCount {
      full_type: string;
      subspaces: TypeCount[];
    }
    const leaves: string[] = [];
    const walk = (t: TypeCount) =>
      t.subspaces.length ? t.subspaces.forEach(walk) : leaves.push(t.full_type);
    walk((await served.api<TypeCount>('/nodes/full_types_count/')).data);
    const seen = new Set<string>();
    for (const fullType of leaves) {
      const [node] = (
        await served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent(`"${fullType}"`)}`,
        )
      ).data.nodes;
      if (node === undefined) continue;
      const kind = viewKind(node.node_type) ?? 'plain';
      if (seen.has(kind)) continue;
      seen.add(kind);
      views.push({ name: `node-${kind}`, path: `/nodes/${node.uuid}`, node: true });
    }
    const groups = await served.api<{ groups: { uuid: string }[] }>('/groups/?orderby=id&limit=1');
    const computers = await served.api<{ computers: { uuid: string }[] }>('/computers/?orderby=id&limit=1');
    views.push(
      { name: 'groups', path: '/groups' },
      { name: 'group', path: `/groups/${groups.data.groups[0]!.uuid}` },
      { name: 'computers', path: '/computers' },
      { name: 'computer', path: `/computers/${computers.data.computers[0]!.uuid}` },
      { name: 'users', path: '/users' },
      { name: 'not-found', path: `/nodes/${UNKNOWN}` },
    );
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  for (const screen of SCREENS) {
    it(`no view scrolls sideways at ${screen.width}×${screen.height}, nor has serious accessibility violations`, async () => {
      const watched = await watchedPage(browser, { viewport: screen });
      const { page } = watched;
      watched.expect(new RegExp(`/api/v4/nodes/${UNKNOWN}/`), 404);
      const wide: string[] = [];
      const violations: string[] = [];
      try {
        for (const view of views) {
          await page.goto(`${served.base}${view.path}`);
          await settled(page);
          if ((await overflow(page)) > 0) wide.push(`${view.name}: ${await overflow(page)} px too wide`);
          violations.push(...(await seriousViolations(page)).map((v) => `${view.name}: ${v}`));
          if (view.node) {
            // Every folded part opened: attributes, link tables, files, the raw answer.
            for (const summary of await page.locator('main details:not([open]) > summary').all()) {
              if (await summary.isVisible()) await summary.click();
            }
            await settled(page);
            const opened = await overflow(page);
            if (opened > 0) wide.push(`${view.name} (all parts open): ${opened} px too wide`);
          }
          if (['home', 'nodes', 'node-structure', 'node-process', 'node-bands'].includes(view.name)) {
            await screenshot(page, `${screen.name}-${view.name}`);
          }
        }
        expect(views.length).toBeGreaterThan(15);
        expect(wide).toEqual([]);
        expect(violations).toEqual([]);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }
});
