/**
 * Group pages with their totals, in Chromium on the rich archive: the list says how many groups there are and
 * how many nodes each holds; a group's page says its number of nodes and pages through all of them. The counts
 * are checked against the members listed row by row through the querybuilder.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, serveExplorer, watchedPage } from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();

interface Group {
  uuid: string;
  label: string;
  type_string: string;
}

describe.skipIf(missing !== undefined)('groups with member counts and totals (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let groups: Group[];
  let total: number | undefined;
  const members = new Map<string, number[]>();

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
    ({
      data: { groups },
      total,
    } = await served.api<{ groups: Group[] }>('/groups/?orderby=label'));
    for (const g of groups) {
      const response = await fetch(`${served.base}/api/v4/querybuilder/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          path: [
            { entity_type: `group.${g.type_string}`, orm_base: 'group', tag: 'g' },
            {
              entity_type: 'node.Node.',
              orm_base: 'node',
              tag: 'n',
              joining_keyword: 'with_group',
              joining_value: 'g',
            },
          ],
          filters: { g: { uuid: { '==': g.uuid } } },
          project: { n: ['id'] },
          order_by: [{ n: [{ id: { order: 'asc' } }] }],
        }),
      });
      const body = (await response.json()) as { data: { n?: { id: number }[] } };
      members.set(
        g.uuid,
        (body.data.n ?? []).map((n) => n.id),
      );
    }
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  it('the list gives the number of groups and of nodes in each', async () => {
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(`${served.base}/groups`);
      expect(total).toBe(groups.length);
      await expect
        .poll(() => page.locator('[data-figure="groups-total"]').textContent())
        .toBe(`${groups.length} groups`);
      for (const g of groups) {
        const cell = page.locator(`[data-members="${g.uuid}"]`);
        await expect
          .poll(() => cell.textContent(), { timeout: 20_000 })
          .toBe(String(members.get(g.uuid)!.length));
      }
      expect([...members.values()].some((ids) => ids.length === 0)).toBe(true);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("a group's page gives its number of nodes and pages through all of them", async () => {
    const [big] = groups
      .filter((g) => members.get(g.uuid)!.length > 20)
      .sort((a, b) => members.get(b.uuid)!.length - members.get(a.uuid)!.length);
    expect(big).toBeDefined();
    const ids = members.get(big!.uuid)!;
    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      await page.goto(`${served.base}/groups/${big!.uuid}`);
      await expect
        .poll(() => page.locator('[data-figure="group-total"]').textContent())
        .toBe(String(ids.length));
      const shownIds = async () =>
        (await page.locator('table.nodes tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent)))
          .length;
      await expect.poll(shownIds).toBe(20);
      await expect.poll(() => page.locator('main').textContent()).toContain(`Nodes 1–20 of ${ids.length}`);
      const last = Math.ceil(ids.length / 20);
      await page.getByRole('button', { name: 'Last page' }).first().click();
      await page.waitForURL(`**/groups/${big!.uuid}?page=${last}`);
      await expect.poll(shownIds).toBe(ids.length - (last - 1) * 20);
      await expect
        .poll(() => page.locator('main').textContent())
        .toContain(`Nodes ${(last - 1) * 20 + 1}–${ids.length} of ${ids.length}`);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
