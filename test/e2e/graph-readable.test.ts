/**
 * The provenance graph reads at first sight, in Chromium at 1366x900 and 390x844: on a fixed sample of node pages
 * of every kind (calculations, workflows, structures, bands, dicts, the most used codes, k-points,
 * pseudopotentials), and after expanding a calculation with the details panel open, every node drawn in the frame
 * has its caption at 10 CSS px or more (12 for the page's own node), no link runs through a box other than its
 * ends, no two link labels overlap, no caption overflows its box, and axe-core finds no serious violation. Run on
 * the rich archive, the same data as a PostgreSQL profile (where installed) and a generated archive of 10^5 nodes.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { brokenWords, clickNode, cutCaption, drawn, readability, settled } from './graph-helpers.js';
import { ALL_SOURCES, richExplorer } from './rich-sources.js';
import { browserMissing, screenshot, watchedPage, type ApiNode } from './support.js';

const missing = browserMissing();
const VIEWPORTS = [
  { width: 1366, height: 900 },
  { width: 390, height: 844 },
];
/** Full types sampled, and how many of each (the first by pk; codes: the most used). */
const KINDS: Array<[string, number]> = [
  ['process.calculation.calcjob.CalcJobNode.|%', 6],
  ['process.workflow.workchain.WorkChainNode.|%', 6],
  ['data.core.structure.StructureData.|', 6],
  ['data.core.array.bands.BandsData.|', 5],
  ['data.core.dict.Dict.|', 5],
  ['data.core.array.kpoints.KpointsData.|', 4],
  ['data.pseudo.upf.UpfData.|', 4],
  ['data.core.upf.UpfData.|', 4],
];
const CODES = 4;

describe.each(ALL_SOURCES)('the provenance graph reads at first sight (%s)', (source) => {
  if (missing !== undefined) {
    it.skip('needs Chromium', () => undefined);
    return;
  }
  const explorer = richExplorer(source);

  /** The codes by how many calculations used them, most used first. */
  async function codesByUse(): Promise<ApiNode[]> {
    const codes = await explorer.nodesOfType('data.core.code.%|%', '', 50);
    const uses = await Promise.all(
      codes.map(async (code) => {
        const answer = await explorer.served.api<{ metadata: Array<{ total_no_of_outgoings: number }> }>(
          `/nodes/${code.uuid}/links/tree/?in_limit=0&out_limit=1`,
        );
        return { code, uses: answer.data.metadata[0]!.total_no_of_outgoings };
      }),
    );
    return uses.sort((a, b) => b.uses - a.uses).map((u) => u.code);
  }

  async function sample(): Promise<ApiNode[]> {
    const picked: ApiNode[] = [];
    for (const [type, count] of KINDS) picked.push(...(await explorer.nodesOfType(type, '', count)));
    picked.push(...(await codesByUse()).slice(0, CODES));
    return picked;
  }

  const check = async (page: Page, centre: string, where: string) => {
    const r = await readability(page, centre);
    expect(r.inFrame, `${where}: nodes in the frame`).toBeGreaterThan(0);
    expect(r.small, `${where}: captions under the limit`).toEqual([]);
    expect(r.problems, `${where}: links, labels and captions`).toEqual([]);
    return r;
  };

  for (const viewport of VIEWPORTS) {
    it(`on a sample of node pages of every kind at ${viewport.width}x${viewport.height}`, async () => {
      const nodes = await sample();
      expect(nodes.length).toBeGreaterThanOrEqual(source === 'generated' ? 20 : 40);
      const watched = await watchedPage(explorer.browser, { viewport });
      const { page } = watched;
      let tipsShown = 0;
      for (const [i, node] of nodes.entries()) {
        await page.goto(`${explorer.served.base}/nodes/${node.uuid}`);
        await page.locator('#graph').scrollIntoViewIfNeeded();
        await settled(page, 1);
        await check(page, node.uuid, `${node.node_type} pk ${node.id}`);
        if (node.node_type.startsWith('process.')) {
          // A process's inputs, outputs and report: lines broken between words only.
          await expect
            .poll(() => page.locator('.node-view table').count(), { timeout: 20_000 })
            .toBeGreaterThan(0);
          expect(await brokenWords(page, '.node-view'), `tables of pk ${node.id}`).toEqual([]);
          const view = (await page.locator('.node-view').boundingBox())!;
          const graph = (await page.locator('#graph').boundingBox())!;
          // On a phone its inputs and results come before its graph; on a desktop they have the page's width.
          if (viewport.width < 1000) expect(view.y, `pk ${node.id}: view before graph`).toBeLessThan(graph.y);
          else expect(view.width, `pk ${node.id}: view width`).toBeGreaterThan(viewport.width * 0.8);
        }
        if (i % 10 === 0) expect(await seriousViolations(page), `axe on pk ${node.id}`).toEqual([]);
        // A caption cut short is given whole on hover.
        const cut = await cutCaption(page);
        if (cut && tipsShown < 3) {
          await page.locator('[data-testid="provenance-graph"]').hover({ position: cut.at });
          await expect.poll(() => page.locator('.pg-tip').textContent(), { timeout: 5_000 }).toBe(cut.full);
          await page.mouse.move(0, 0);
          tipsShown++;
        }
      }
      expect(tipsShown, 'pages with a caption cut short, hovered').toBeGreaterThan(0);
      expect(watched.problems).toEqual([]);
      await page.context().close();
    }, 600_000);

    it(`splits a long layer into sub-columns, and shows "N more" for what does not fit, at ${viewport.width}x${viewport.height}`, async () => {
      // The most used code's page, then its calculations expanded one after the other: their outputs share a layer.
      const code = (await codesByUse())[0]!;
      const users = await explorer.served.api<{ nodes: Array<{ outgoing: ApiNode[] }> }>(
        `/nodes/${code.uuid}/links/tree/?in_limit=0&out_limit=8`,
      );
      const calcs = users.data.nodes[0]!.outgoing.filter((n) => n.node_type.startsWith('process.'));
      const watched = await watchedPage(explorer.browser, { viewport });
      const { page } = watched;
      await page.goto(`${explorer.served.base}/nodes/${code.uuid}`);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await settled(page, 2);
      const rows = Number(await page.locator('[data-testid="provenance-graph"]').getAttribute('data-rows'));
      expect(rows).toBeGreaterThanOrEqual(4);
      let before = await drawn(page);
      const x = (id: string) => before.nodes.find((n) => n.id === id)!.x;
      const codeX = x(code.uuid);
      const calcX = x(calcs[0]!.uuid);
      const reveal = page.getByTestId('graph-reveal');
      const details = page.locator('[data-testid="graph-details"]');
      for (const calc of calcs) {
        if ((await reveal.count()) > 0) break;
        await clickNode(page, calc.uuid);
        await expect.poll(() => details.getAttribute('data-uuid'), { timeout: 20_000 }).toBe(calc.uuid);
        await details.getByRole('button', { name: 'Expand' }).click();
        await expect
          .poll(() => details.getByRole('button', { name: 'Expand' }).count(), { timeout: 20_000 })
          .toBe(0);
        await settled(page, 1);
        const after = await drawn(page);
        // Nothing drawn moved; what is new is in a layer of its own, never in the code's column.
        const was = new Map(before.nodes.map((n) => [n.id, `${n.x},${n.y}`]));
        for (const n of after.nodes) if (was.has(n.id)) expect(`${n.x},${n.y}`, n.id).toBe(was.get(n.id));
        for (const n of after.nodes.filter((m) => !was.has(m.id)))
          expect(Math.abs(n.x - codeX), `${n.id} in the code's column`).toBeGreaterThan(1);
        before = after;
      }
      // No column holds more than the frame shows at the caption limit; the calculations' outputs needed more than
      // one, so their layer is split into sub-columns.
      const columns = new Map<number, number>();
      for (const n of before.nodes) columns.set(Math.round(n.x), (columns.get(Math.round(n.x)) ?? 0) + 1);
      for (const [at, count] of columns) expect(count, `column at x ${at}`).toBeLessThanOrEqual(rows);
      const right = before.nodes.filter((n) => n.x > calcX + 1);
      const texts = await reveal.allTextContents();
      const waiting = texts.reduce(
        (sum, t) => sum + Number(/Show ([\d,]+) more/.exec(t)![1]!.replace(/,/g, '')),
        0,
      );
      // The rich data's calculations have more outputs than a column holds; the generated ones may have fewer.
      if (source !== 'generated')
        expect(right.length + waiting, 'outputs of the calculations').toBeGreaterThan(rows);
      if (right.length + waiting > rows)
        expect(new Set(right.map((n) => Math.round(n.x))).size, 'sub-columns').toBeGreaterThanOrEqual(2);
      await check(page, code.uuid, 'after the expansions');
      if (texts.length > 0) {
        // "N more" is a button, reached and pressed with the keyboard: it draws what it counted, still readable.
        const count = Number(/Show ([\d,]+) more/.exec(texts[0]!)![1]!.replace(/,/g, ''));
        const listed = await settled(page, 1);
        await reveal.first().focus();
        await page.keyboard.press('Enter');
        await settled(page, listed + count);
        expect((await drawn(page)).nodes.length).toBe(before.nodes.length + count);
        await check(page, code.uuid, 'after "N more"');
        expect(await seriousViolations(page)).toEqual([]);
      }
      expect(watched.problems).toEqual([]);
      await page.context().close();
    }, 300_000);

    it(`after expanding a calculation with the details panel open at ${viewport.width}x${viewport.height}`, async () => {
      // The first band structure made by a calculation.
      let bands: ApiNode | undefined;
      let calc: ApiNode | undefined;
      for (const b of await explorer.nodesOfType('data.core.array.bands.BandsData.|', '', 50)) {
        const tree = await explorer.served.api<{
          nodes: Array<{ incoming: Array<ApiNode & { link_type: string }> }>;
        }>(`/nodes/${b.uuid}/links/tree/?in_limit=8&out_limit=8`);
        calc = tree.data.nodes[0]!.incoming.find((n) => n.link_type === 'create');
        bands = b;
        if (calc) break;
      }
      expect(calc).toBeDefined();
      const watched = await watchedPage(explorer.browser, { viewport });
      const { page } = watched;
      await page.goto(`${explorer.served.base}/nodes/${bands!.uuid}`);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      const before = await settled(page, 2);
      await clickNode(page, calc!.uuid);
      const details = page.locator('[data-testid="graph-details"]');
      await expect.poll(() => details.getAttribute('data-uuid'), { timeout: 20_000 }).toBe(calc!.uuid);
      await details.getByRole('button', { name: 'Expand' }).click();
      await settled(page, before + 1);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await check(page, bands!.uuid, 'after the expansion');
      await page.getByRole('toolbar', { name: 'Graph view' }).getByRole('button', { name: 'Fit' }).click();
      const fitted = await check(page, bands!.uuid, 'after Fit');
      expect(fitted.zoom).toBeGreaterThanOrEqual(10 / 12 - 1e-6);
      await screenshot(page, `graph-readable-${source}-${viewport.width}`);
      // The details' tables break lines between words only.
      await expect.poll(() => details.locator('table').count(), { timeout: 20_000 }).toBeGreaterThan(0);
      expect(await brokenWords(page, '.pg-panel')).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
      expect(watched.problems).toEqual([]);
      await page.context().close();
    }, 300_000);
  }
});
