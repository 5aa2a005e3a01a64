/**
 * A calculation's page in Chromium (rich archive): its results (the plain values of the dictionaries it created)
 * are summarised in its view, as the API has them.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type ApiNode } from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();

describe.skipIf(missing !== undefined)('process views (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  it("a calculation's output dictionary is summarised: each plain value as the API has it", async () => {
    const calcs = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/page/1/?perpage=50&orderby=id&full_type=${encodeURIComponent('"process.calculation.calcjob.CalcJobNode.|%"')}`,
    );
    let found: { calc: ApiNode; values: Record<string, unknown> } | undefined;
    for (const calc of calcs.data.nodes) {
      const outputs = await served.api<{
        outgoing: (ApiNode & { link_label: string; attributes: Record<string, unknown> })[];
      }>(
        `/nodes/${calc.uuid}/links/outgoing/page/1/?perpage=5&full_type=${encodeURIComponent('"data.core.dict.Dict.|"')}&attributes=true`,
      );
      const parameters = outputs.data.outgoing.find((o) => o.link_label === 'output_parameters');
      if (parameters) {
        found = { calc, values: parameters.attributes };
        break;
      }
    }
    expect(found).toBeDefined();
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${found!.calc.uuid}`);
      const summary = page.locator('[data-testid="key-output"]', { hasText: 'output_parameters' });
      await summary.waitFor({ timeout: 20_000 });
      let compared = 0;
      for (const [key, value] of Object.entries(found!.values)) {
        if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') continue;
        const shown = await summary.locator(`dd[data-key="${key}"]`).textContent();
        if (typeof value === 'number') expect(Number(shown)).toBeCloseTo(value, 4);
        else if (typeof value === 'boolean') expect(shown).toBe(value ? 'yes' : 'no');
        else expect(shown).toBe(value);
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("a workflow's whole call tree: a called workflow unfolds into its own called processes, as the API links them", async () => {
    type Called = ApiNode & { link_label: string };
    const called = async (uuid: string) =>
      (
        await served.api<{ outgoing: Called[] }>(
          `/nodes/${uuid}/links/outgoing/page/1/?perpage=50&full_type=${encodeURIComponent('"process.%|%"')}`,
        )
      ).data.outgoing;
    const workflows = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/page/1/?perpage=100&orderby=id&full_type=${encodeURIComponent('"process.workflow.%|%"')}`,
    );
    let found: { top: ApiNode; child: Called; grandchildren: Called[] } | undefined;
    for (const top of workflows.data.nodes) {
      for (const child of (await called(top.uuid)).filter((c) =>
        c.node_type.startsWith('process.workflow.'),
      )) {
        const grandchildren = await called(child.uuid);
        if (grandchildren.length > 0) found = { top, child, grandchildren };
        if (found) break;
      }
      if (found) break;
    }
    expect(found).toBeDefined();
    const { top, child, grandchildren } = found!;
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${top.uuid}`);
      const tree = page.locator('[data-testid="call-tree"]');
      const item = tree.locator(`:scope > li[data-uuid="${child.uuid}"]`);
      await item.waitFor({ timeout: 20_000 });
      expect(await tree.locator(':scope > li').count()).toBe((await called(top.uuid)).length);
      await item.locator(':scope > button[aria-expanded="false"]').click();
      const nested = item.locator(':scope > ul > li');
      await expect.poll(() => nested.count()).toBe(grandchildren.length);
      expect(await nested.evaluateAll((all) => all.map((li) => li.getAttribute('data-uuid')))).toEqual(
        grandchildren.map((g) => g.uuid),
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
