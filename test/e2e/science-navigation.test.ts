/**
 * Science-first navigation in Chromium (rich data: the archive, and the PostgreSQL profile where PostgreSQL is
 * installed; a generated archive of 10^5 nodes): the home page's shortcuts to structures, band structures,
 * workflows and failed processes with their numbers; the node list filtered by elements, their number and a formula
 * (answered by the source's OPTIMADE endpoint, the first 400 structures it finds when there are more); band
 * structures listed with the formula of the structure they were computed for; `/nodes/<pk>` opening the node of
 * that pk.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { browserMissing, watchedPage, type ApiNode } from './support.js';
import { ALL_SOURCES, richExplorer } from './rich-sources.js';

const missing = browserMissing();
const PHONE = { width: 390, height: 844 };
/** The structures the node list takes from OPTIMADE at most (web/src/views/NodeList.tsx). */
const TAKEN = 400;
const fmt = (n: number) => n.toLocaleString('en-US');
/** Two elements of one binary compound in the data, and that compound's formula typed the other way round. */
const COMPOUNDS = {
  rich: { pair: ['Al', 'Se'], typed: 'SeAl', hill: 'AlSe' },
  generated: { pair: ['As', 'Ga'], typed: 'GaAs', hill: 'AsGa' },
};

type WithAttributes = ApiNode & { attributes?: Record<string, unknown> };

describe.skipIf(missing !== undefined).each(ALL_SOURCES)(
  'science-first navigation, served from the %s source',
  (source) => {
    const rich = richExplorer(source);
    const compound = COMPOUNDS[source === 'generated' ? 'generated' : 'rich'];

    /** Every structure an OPTIMADE filter finds (page after page) and how many it says there are. */
    const optimade = async (filter: string) => {
      const ids: string[] = [];
      for (;;) {
        const response = await fetch(
          `${rich.served.base}/optimade/v1/structures?filter=${encodeURIComponent(filter)}&page_limit=500&page_offset=${ids.length}&response_fields=_quarry_pk`,
        );
        const body = (await response.json()) as { data: { id: string }[]; meta: { data_returned: number } };
        ids.push(...body.data.map((d) => d.id));
        if (body.data.length === 0 || ids.length >= body.meta.data_returned)
          return { ids: ids.sort(), total: body.meta.data_returned };
      }
    };
    /** Every node of a list path, its pages asked for a few at a time. */
    const everyNode = async <T>(path: string): Promise<T[]> => {
      const first = await rich.served.api<{ nodes: T[] }>(path.replace('{page}', '1'));
      const pages = Math.ceil(first.total! / 400);
      const nodes = [...first.data.nodes];
      for (let from = 2; from <= pages; from += 6) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(6, pages - from + 1) }, (_, i) =>
            rich.served.api<{ nodes: T[] }>(path.replace('{page}', String(from + i))),
          ),
        );
        for (const answer of batch) nodes.push(...answer.data.nodes);
      }
      expect(nodes.length).toBe(first.total);
      return nodes;
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
      const processes = await everyNode<WithAttributes>(
        `/nodes/page/{page}/?perpage=400&orderby=id&full_type=${encodeURIComponent('"process.%|%"')}&attributes=true&attributes_filter=process_state,exit_status`,
      );
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
        await expect.poll(() => figure('failed').textContent(), { timeout: 20_000 }).toBe(fmt(failed.length));
        await expect
          .poll(() => figure('data.core.structure.').textContent())
          .toBe(fmt(sum('data.core.structure.')));
        expect(await figure('data.core.array.bands.').textContent()).toBe(fmt(sum('data.core.array.bands.')));
        expect(await figure('process.workflow.').textContent()).toBe(fmt(sum('process.workflow.')));
        expect(await seriousViolations(page)).toEqual([]);

        // The failed processes as a node list: all of them, or the newest 400 where there are more; every row one.
        await page.locator('.shortcuts a', { hasText: 'Failed processes' }).click();
        await page.locator('h1', { hasText: 'Failed processes' }).waitFor();
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${fmt(Math.min(failed.length, TAKEN))} nodes`);
        const failedUuids = new Set(failed.map((p) => p.uuid));
        const rows = await shownUuids(page);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((uuid) => !failedUuids.has(uuid))).toEqual([]);
        // Band structures: the shortcut opens their list, each row with the formula of its structure.
        await page.goto(`${rich.served.base}/`);
        await page.locator('.shortcuts a', { hasText: 'Band structures' }).click();
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${fmt(sum('data.core.array.bands.'))} nodes`);
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
      const formulaOfMaker = async (b: ApiNode) => {
        const { incoming } = (
          await rich.served.api<{ incoming: (ApiNode & { link_type: string })[] }>(
            `/nodes/${b.uuid}/links/incoming/`,
          )
        ).data;
        const creator = incoming.find((l) => l.link_type === 'create');
        if (!creator) return;
        const inputs = (
          await rich.served.api<{ incoming: ApiNode[] }>(`/nodes/${creator.uuid}/links/incoming/`)
        ).data.incoming;
        const structure = inputs.find((n) => n.node_type.startsWith('data.core.structure.'));
        if (!structure) return;
        const { data } = await rich.served.api<{ derived_properties: { formula: string } }>(
          `/nodes/${structure.uuid}/contents/derived_properties/`,
        );
        expected.set(b.uuid, data.derived_properties.formula);
      };
      for (let i = 0; i < bands.length; i += 10)
        await Promise.all(bands.slice(i, i + 10).map(formulaOfMaker));
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
        const [a, b] = compound.pair;
        const cases = [
          { params: 'elements=Si', filter: 'elements HAS ALL "Si"' },
          {
            params: `elements=${a},${b}&nelements=2`,
            filter: `elements HAS ALL "${a}","${b}" AND nelements=2`,
          },
          {
            params: `formula=${compound.typed}`,
            filter: ['hill', 'descriptive', 'reduced']
              .map((form) => `chemical_formula_${form}="${compound.hill}"`)
              .join(' OR '),
          },
        ];
        for (const c of cases) {
          const found = await optimade(c.filter);
          expect(found.total).toBeGreaterThan(0);
          await page.goto(`${rich.served.base}/nodes?${c.params}&perpage=200`);
          // All of them, or the first 400 and how many there are.
          const total = page.locator('[data-figure="list-total"]');
          await expect
            .poll(() => total.textContent(), { timeout: 20_000 })
            .toContain(`${fmt(Math.min(found.total, TAKEN))} nodes`);
          if (found.total > TAKEN) expect(await total.textContent()).toContain(`of ${fmt(found.total)}`);
          // The first page: every row one OPTIMADE found; all of them where they fit.
          const shown = await shownUuids(page);
          expect(shown.length).toBe(Math.min(found.total, TAKEN, 200));
          if (found.total <= 200) expect(shown).toEqual(found.ids);
          else {
            const ids = new Set(found.ids);
            expect(shown.filter((uuid) => !ids.has(uuid))).toEqual([]);
          }
        }
        // The form sets them too, and they stay in the address. What is typed before the list of types arrives
        // stays typed when it comes (the form drew the address's values again over it).
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route(/\/nodes\/full_types_count\//, async (route) => {
          await held;
          await route.continue();
        });
        await page.goto(`${rich.served.base}/nodes`);
        await page.locator('input[name="elements"]').fill(`${a} ${b}`);
        await page.locator('input[name="nelements"]').fill('2');
        release();
        await expect
          .poll(() => page.locator('select[name="type"] option').count(), { timeout: 20_000 })
          .toBeGreaterThan(1);
        await page.locator('form.filters button[type="submit"]').click();
        await page.waitForURL(new RegExp(`elements=${a}%2C${b}`));
        expect(page.url()).toContain('nelements=2');
        const found = await optimade(`elements HAS ALL "${a}","${b}" AND nelements=2`);
        await expect
          .poll(() => page.locator('[data-figure="list-total"]').textContent())
          .toContain(`${fmt(Math.min(found.total, TAKEN))} nodes`);
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
