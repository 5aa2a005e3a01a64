/**
 * Formulas in the explorer's lists, in Chromium on the rich archive: every structure row of the node list and
 * of a calculation's incoming links shows the formula the server derives, with its counts as subscripts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type ApiNode } from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();
const STRUCTURE = 'data.core.structure.StructureData.|';

describe.skipIf(missing !== undefined)('formulas in lists (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  const derived = async (uuid: string) =>
    (
      await served.api<{ derived_properties: { formula: string } }>(
        `/nodes/${uuid}/contents/derived_properties/`,
      )
    ).data.derived_properties.formula;

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  it("the structure list and a calculation's links show each structure's formula", async () => {
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      const rows = (
        await served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=20&orderby=-ctime,id&full_type=${encodeURIComponent(`"${STRUCTURE}"`)}`,
        )
      ).data.nodes;
      // Newest first, as asked (with no order asked, the labelled come first).
      await page.goto(`${served.base}/nodes?type=${encodeURIComponent(STRUCTURE)}&sort=-ctime`);
      const shown = page.locator('table.nodes tbody tr .formula');
      // The page, its list and then the formulas' request: seconds on a busy machine (1 s by default was not).
      await expect.poll(() => shown.count(), { timeout: 20_000 }).toBe(rows.length);
      const formulas = await shown.evaluateAll((all) => all.map((e) => e.getAttribute('data-formula')));
      expect(formulas).toEqual(await Promise.all(rows.map((n) => derived(n.uuid))));
      const withCount = formulas.findIndex((f) => /\d/.test(f!));
      expect(await shown.nth(withCount).locator('sub').count()).toBeGreaterThan(0);

      // A calculation that used a structure: its incoming links name the structure by its formula too.
      let calc: ApiNode | undefined;
      let used: ApiNode | undefined;
      const calcs = await served.api<{ nodes: ApiNode[] }>(
        `/nodes/page/1/?perpage=50&orderby=id&full_type=${encodeURIComponent('"process.calculation.calcjob.CalcJobNode.|%"')}`,
      );
      for (const candidate of calcs.data.nodes) {
        used = (
          await served.api<{ incoming: ApiNode[] }>(
            `/nodes/${candidate.uuid}/links/incoming/page/1/?perpage=20`,
          )
        ).data.incoming.find((n) => n.node_type.startsWith('data.core.structure.'));
        calc = candidate;
        if (used) break;
      }
      expect(used).toBeDefined();
      if (calc) {
        await page.goto(`${served.base}/nodes/${calc.uuid}#incoming`);
        const linked = page.locator('#incoming .formula');
        await expect.poll(() => linked.count(), { timeout: 20_000 }).toBeGreaterThan(0);
        const all = await linked.evaluateAll((e) => e.map((x) => x.getAttribute('data-formula')));
        expect(all).toContain(await derived(used!.uuid));
      }
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("a structure's attributes are compact: its 3×3 cell on 3 lines, each site's position on one", async () => {
    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      const [structure] = (
        await served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent(`"${STRUCTURE}"`)}`,
        )
      ).data.nodes;
      const { attributes } = (
        await served.api<{ attributes: { cell: number[][] } }>(
          `/nodes/${structure!.uuid}/contents/attributes/`,
        )
      ).data;
      await page.goto(`${served.base}/nodes/${structure!.uuid}#attributes`);
      const cell = page.locator('#attributes .json-matrix', { hasText: 'cell:' });
      await cell.waitFor();
      const rows = await cell.locator('.json-row').allTextContents();
      expect(rows).toEqual(attributes.cell.map((row) => `[${row.join(', ')}]`));
      const lineHeight = await cell.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight));
      expect((await cell.boundingBox())!.height).toBeLessThanOrEqual(3.5 * lineHeight);
      const position = page.locator('#attributes .json-inline', { hasText: 'position:' }).first();
      expect((await position.boundingBox())!.height).toBeLessThanOrEqual(1.5 * lineHeight);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
  it('searching a formula (Si2) or elements (Si O) lists the structures through OPTIMADE, linked to their pages', async () => {
    // What the v4 API says: every structure and its derived formula.
    const all = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/page/1/?perpage=400&orderby=id&full_type=${encodeURIComponent(`"${STRUCTURE}"`)}`,
      )
    ).data.nodes;
    const formulas = new Map(
      await Promise.all(all.map(async (n) => [n.uuid, await derived(n.uuid)] as const)),
    );
    // CifData nodes whose files read into sites are OPTIMADE structures too, with the formula of their sites
    // (test/optimade-structures.test.ts checks it against the CIF the v4 API serves).
    const cifs = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/page/1/?perpage=400&orderby=id&full_type=${encodeURIComponent('"data.core.cif.CifData.|"')}`,
      )
    ).data.nodes;
    expect(cifs.length).toBeGreaterThan(0);
    for (const cif of cifs) {
      const entry = (await (await fetch(`${served.base}/optimade/v1/structures/${cif.uuid}`)).json()) as {
        data: { attributes: { chemical_formula_descriptive: string } };
      };
      formulas.set(cif.uuid, entry.data.attributes.chemical_formula_descriptive);
    }
    const si2 = [...formulas].filter(([, f]) => f === 'Si2').map(([uuid]) => uuid);
    expect(si2.length).toBeGreaterThan(0);

    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(served.base);
      await page.getByLabel('Find a node').fill('Si2');
      // The home's own search, not the header's search over every source.
      await page.locator('#main').getByRole('button', { name: 'Search' }).click();
      const rows = page.locator('.structure-matches tbody tr');
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(si2.length);
      const shown = await rows.evaluateAll((all) =>
        all.map((r) => [
          r.getAttribute('data-uuid'),
          r.querySelector('.formula')?.getAttribute('data-formula'),
        ]),
      );
      // The exact formula leads; every Si2 structure is there, each row's formula is the v4 API's own.
      expect(
        shown
          .slice(0, si2.length)
          .map(([uuid]) => uuid)
          .sort(),
      ).toEqual([...si2].sort());
      for (const [uuid, formula] of shown) expect(formula).toBe(formulas.get(uuid!));
      expect(shown.every(([uuid]) => /^Si\d*$/.test(formulas.get(uuid!)!))).toBe(true);
      await rows.first().getByRole('link').click();
      await page.waitForURL(`**/nodes/${shown[0]![0]}`);
      await page.getByRole('heading', { level: 1 }).waitFor();

      // Elements: every structure with both Si and O (possibly none), each shown with its formula.
      const withSiO = [...formulas].filter(([, f]) => /Si(?![a-z])/.test(f) && /O(?![a-z])/.test(f));
      await page.goto(`${served.base}/nodes?label=${encodeURIComponent('Si O')}`);
      const total = page.locator('[data-figure="structure-total"]');
      await total.waitFor();
      expect(await total.textContent()).toMatch(new RegExp(`^${withSiO.length} structures`));
      expect(await rows.count()).toBe(Math.min(withSiO.length, 50));
      expect(await page.locator('h2', { hasText: 'Structures with O, Si' }).count()).toBe(1);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
  it("a structure's page links its OPTIMADE entry, and the home shows the source's OPTIMADE base", async () => {
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      const [structure] = (
        await served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent(`"${STRUCTURE}"`)}`,
        )
      ).data.nodes;
      await page.goto(`${served.base}/nodes/${structure!.uuid}`);
      const link = page.locator('[data-field="optimade"]');
      await link.waitFor();
      const entry = await fetch((await link.getAttribute('href'))!);
      expect(entry.status).toBe(200);
      const { data } = (await entry.json()) as {
        data: { id: string; attributes: { chemical_formula_descriptive: string } };
      };
      expect(data.id).toBe(structure!.uuid);
      expect(data.attributes.chemical_formula_descriptive).toBe(await derived(structure!.uuid));

      // A CIF file read into sites has an entry too, linked once the server says it is there.
      const [cif] = (
        await served.api<{ nodes: ApiNode[] }>(
          `/nodes/page/1/?perpage=1&orderby=id&full_type=${encodeURIComponent('"data.core.cif.CifData.|"')}`,
        )
      ).data.nodes;
      await page.goto(`${served.base}/nodes/${cif!.uuid}`);
      await link.waitFor();
      const cifEntry = await fetch((await link.getAttribute('href'))!);
      expect(cifEntry.status).toBe(200);
      expect(((await cifEntry.json()) as { data: { id: string } }).data.id).toBe(cif!.uuid);

      await page.goto(served.base);
      const base = page.locator('[data-field="optimade-base"]');
      await base.waitFor();
      expect(await base.textContent()).toBe(`${served.base}/optimade/v1`);
      const info = await fetch((await base.getAttribute('href'))!);
      expect(((await info.json()) as { meta: { api_version: string } }).meta.api_version).toMatch(/^1\./);
      // A long URL wraps on a phone instead of widening the page.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
  it('the OPTIMADE links are right under another --prefix too (OPTIMADE is not under the v4 prefix)', async () => {
    const other = await serveExplorer([richFile('rich.aiida')], ['--prefix', '/v4']);
    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      await page.goto(other.base);
      const base = page.locator('[data-field="optimade-base"]');
      await base.waitFor();
      expect(await base.textContent()).toBe(`${other.base}/optimade/v1`);
      expect((await fetch((await base.getAttribute('href'))!)).status).toBe(200);
      await page.goto(`${other.base}/nodes?label=Si2`);
      await page.locator('.structure-matches tbody tr').first().waitFor();
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
      other.stop();
    }
  });
});
