/**
 * Science-first navigation in Chromium (rich data: the archive, and the PostgreSQL profile where PostgreSQL is
 * installed): the home page's shortcuts to structures, band structures, workflows and failed processes with their
 * numbers; the node list filtered by elements, their number and a formula (answered by the source's OPTIMADE
 * endpoint); band structures listed with the formula of the structure they were computed for; `/nodes/<pk>` opening
 * the node of that pk.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { browserMissing, watchedPage, type ApiNode } from './support.js';
import { RICH_SOURCES, richExplorer } from './rich-sources.js';

const missing = browserMissing();
const PHONE = { width: 390, height: 844 };

describe.skipIf(missing !== undefined).each(RICH_SOURCES)(
  'science-first navigation (rich data, %s)',
  (source) => {
    const rich = richExplorer(source);

    const optimade = async (filter: string) => {
      const response = await fetch(
        `${rich.served.base}/optimade/v1/structures?filter=${encodeURIComponent(filter)}&page_limit=400&response_fields=_quarry_pk`,
      );
      const body = (await response.json()) as { data: { id: string }[]; meta: { data_returned: number } };
      return { ids: body.data.map((d) => d.id).sort(), total: body.meta.data_returned };
    };
    const shownUuids = async (page: import('playwright-core').Page) => {
      const hrefs = await page
        .locator('table.nodes tbody tr a[href*="/nodes/"]')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
      return [...new Set(hrefs.map((h) => h.split('/nodes/')[1]!.split(/[?#]/)[0]!))].sort();
    };

    it('the home page counts structures, band structures, workflows and failed processes, and each opens its list', async () => {
      const { data: stats } = await rich.served.api<{ types: Record<string, number> }>('/nodes/statistics/');
      const sum = (prefix: string) =>
        Object.entries(stats.types).reduce((n, [t, c]) => (t.startsWith(prefix) ? n + c : n), 0);
      const processes: (ApiNode & { attributes?: Record<string, unknown> })[] = [];
      for (let pageNo = 1; ; pageNo++) {
        const { data, total } = await rich.served.api<{
          nodes: (ApiNode & { attributes?: Record<string, unknown> })[];
        }>(
          `/nodes/page/${pageNo}/?perpage=400&orderby=id&full_type=${encodeURIComponent('"process.%|%"')}&attributes=true&attributes_filter=process_state,exit_status`,
        );
        processes.push(...data.nodes);
        if (processes.length >= total!) break;
      }
      const failed = processes.filter(
        (p) =>
          ['excepted', 'killed'].includes(String(p.attributes?.process_state)) ||
          (typeof p.attributes?.exit_status === 'number' && p.attributes.exit_status > 0),
      );
      expect(failed.length).toBeGreaterThan(0);

      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/`);
        const figure = (name: string) => page.locator(`[data-figure="shortcut-${name}"]`);
        await expect
          .poll(() => figure('failed').textContent(), { timeout: 20_000 })
          .toBe(String(failed.length));
        await expect
          .poll(() => figure('data.core.structure.').textContent())
          .toBe(String(sum('data.core.structure.')));
        expect(await figure('data.core.array.bands.').textContent()).toBe(
          String(sum('data.core.array.bands.')),
        );
        expect(await figure('process.workflow.').textContent()).toBe(String(sum('process.workflow.')));
        expect(await seriousViolations(page)).toEqual([]);

        // The failed processes: exactly those (fewer than the 400 the list takes), as a node list.
        await page.locator('.shortcuts a', { hasText: 'Failed processes' }).click();
        await page.locator('h1', { hasText: 'Failed processes' }).waitFor();
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${failed.length} nodes`);
        // Band structures: the shortcut opens their list, each row with the formula of its structure.
        await page.goto(`${rich.served.base}/`);
        await page.locator('.shortcuts a', { hasText: 'Band structures' }).click();
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${sum('data.core.array.bands.')} nodes`);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it('band structure rows show the formula of the structure they were computed for', async () => {
      const bands = (
        await rich.served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=50&orderby=-ctime,id&full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}`,
        )
      ).data.nodes;
      const expected = new Map<string, string>();
      for (const b of bands) {
        const { incoming } = (
          await rich.served.api<{ incoming: (ApiNode & { link_type: string })[] }>(
            `/nodes/${b.uuid}/links/incoming/`,
          )
        ).data;
        const creator = incoming.find((l) => l.link_type === 'create');
        if (!creator) continue;
        const inputs = (
          await rich.served.api<{ incoming: ApiNode[] }>(`/nodes/${creator.uuid}/links/incoming/`)
        ).data.incoming;
        const structure = inputs.find((n) => n.node_type.startsWith('data.core.structure.'));
        if (!structure) continue;
        const { data } = await rich.served.api<{ derived_properties: { formula: string } }>(
          `/nodes/${structure.uuid}/contents/derived_properties/`,
        );
        expected.set(b.uuid, data.derived_properties.formula);
      }
      expect(expected.size).toBeGreaterThan(0);
      const watched = await watchedPage(rich.browser);
      const { page } = watched;
      try {
        await page.goto(
          `${rich.served.base}/nodes?type=${encodeURIComponent('data.core.array.bands.BandsData.|')}&perpage=50`,
        );
        const cells = page.locator('table.nodes tbody tr [data-field="computed-for"] .formula');
        await expect.poll(() => cells.count(), { timeout: 20_000 }).toBe(expected.size);
        const rows = page.locator('table.nodes tbody tr');
        for (let i = 0; i < (await rows.count()); i++) {
          const href = (await rows.nth(i).locator('a[href*="/nodes/"]').first().getAttribute('href'))!;
          const uuid = href.split('/nodes/')[1]!.split(/[?#]/)[0]!;
          const shown = rows.nth(i).locator('[data-field="computed-for"] .formula');
          if (expected.has(uuid)) expect(await shown.getAttribute('data-formula')).toBe(expected.get(uuid));
          else expect(await shown.count()).toBe(0);
        }
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it('the node list filters structures by elements, number of elements and formula, as OPTIMADE finds them', async () => {
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        const cases = [
          { params: 'elements=Si', filter: 'elements HAS ALL "Si"' },
          { params: 'elements=Al,Se&nelements=2', filter: 'elements HAS ALL "Al","Se" AND nelements=2' },
          {
            params: 'formula=SeAl',
            filter:
              'chemical_formula_hill="AlSe" OR chemical_formula_descriptive="AlSe" OR chemical_formula_reduced="AlSe"',
          },
        ];
        for (const c of cases) {
          const found = await optimade(c.filter);
          expect(found.total).toBeGreaterThan(0);
          await page.goto(`${rich.served.base}/nodes?${c.params}&perpage=200`);
          await expect
            .poll(() => page.locator('[data-figure="list-total"]').textContent(), { timeout: 20_000 })
            .toContain(`${found.total} nodes`);
          expect(await shownUuids(page)).toEqual(found.ids);
        }
        // The form sets them too, and they stay in the address.
        await page.goto(`${rich.served.base}/nodes`);
        await page.locator('input[name="elements"]').fill('Al Se');
        await page.locator('input[name="nelements"]').fill('2');
        await page.locator('form.filters button[type="submit"]').click();
        await page.waitForURL(/elements=Al%2CSe/);
        expect(page.url()).toContain('nelements=2');
        const found = await optimade('elements HAS ALL "Al","Se" AND nelements=2');
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${found.total} nodes`);
        expect(await seriousViolations(page)).toEqual([]);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it('/nodes/<pk> opens the node of that pk, and a pk no node has says so', async () => {
      const [node] = (
        await rich.served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}`,
        )
      ).data.nodes;
      const watched = await watchedPage(rich.browser);
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/nodes/${node!.id}`);
        await page.locator('[data-field="uuid"]').waitFor({ timeout: 20_000 });
        expect(await page.locator('[data-field="uuid"]').textContent()).toBe(node!.uuid);
        expect(await page.locator('[data-field="pk"]').textContent()).toBe(String(node!.id));
        watched.expect(/\/nodes\/999999999\//, 404);
        await page.goto(`${rich.served.base}/nodes/999999999`);
        await page.getByText('No node with the pk or UUID').waitFor({ timeout: 20_000 });
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  },
);
