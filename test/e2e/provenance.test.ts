/**
 * The provenance graph in Chromium on the rich archive, as a scientist follows provenance: from a band structure
 * made by a calculation that a workflow called, three expansions (the calculation, the workflow, the structure);
 * from a code used by 87 calculations, one. After Fit every drawn node is inside the frame; a calculation's inputs
 * are left of it and its outputs right; a click shows a node's details beside the graph without leaving the page;
 * the address keeps the expansions and the selection and a reload draws the same picture; Zoom out always zooms
 * out; full screen takes the window; axe-core finds no serious or critical violation. The layout, fit and address
 * tests run on the archive, on the same data as a PostgreSQL profile (where PostgreSQL is installed) and on a
 * generated archive of 10^5 nodes, where the hub is a code with thousands of users.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_LABEL_PX, NEIGHBOURS_PER_DIRECTION } from '../../web/src/by-type/logic/graph.js';
import { NODE_FONT } from '../../web/src/by-type/logic/graph-plan.js';
import { seriousViolations } from './axe.js';
import { clickNode, drawn, settled, type Drawn } from './graph-helpers.js';
import { browserMissing, launchBrowser, screenshot, watchedPage, type ApiNode } from './support.js';
import { ALL_SOURCES, serveRich, type ServedRich, type Source } from './rich-sources.js';

const missing = browserMissing();
/**
 * The same rich data as an archive and, where PostgreSQL is installed, as a live profile; and a generated archive
 * of 10^5 nodes (generated-source.ts), where a code has thousands of users.
 */
const NAMES: Record<Source, string> = {
  archive: 'the rich archive',
  postgres: 'the rich data as a PostgreSQL profile',
  generated: 'a generated archive of 10^5 nodes',
};
const SOURCES = ALL_SOURCES.map((key) => ({ key, name: NAMES[key] }));

interface Linked extends ApiNode {
  link_type: string;
  link_label: string;
}
interface Tree {
  nodes: Array<{ incoming: Linked[]; outgoing: Linked[] }>;
  metadata: Array<{ total_no_of_outgoings: number }>;
}

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The least zoom: captions at MIN_LABEL_PX. */
const LEAST_ZOOM = MIN_LABEL_PX / NODE_FONT;

/**
 * After Fit: every drawn node inside the frame, or, where the picture does not fit at the caption limit, the view
 * at that limit (never smaller).
 */
function fitted(d: Drawn): string[] {
  if (d.zoom < LEAST_ZOOM - 1e-6) return [`zoom ${d.zoom} under the caption limit ${LEAST_ZOOM}`];
  if (Math.abs(d.zoom - LEAST_ZOOM) < 1e-6) return [];
  return allInside(d);
}

function allInside(d: Drawn): string[] {
  return d.nodes
    .filter((n) => n.x1 < -0.5 || n.y1 < -0.5 || n.x2 > d.width + 0.5 || n.y2 > d.height + 0.5)
    .map(
      (n) => `${n.id} at ${Math.round(n.x1)}..${Math.round(n.x2)} × ${Math.round(n.y1)}..${Math.round(n.y2)}`,
    );
}

describe.each(SOURCES)('the provenance graph ($name)', ({ key }) => {
  if (missing !== undefined) {
    it.skip('needs Chromium', () => undefined);
    return;
  }
  const onArchive = key === 'archive';
  const generated = key === 'generated';
  let source: ServedRich | undefined;
  let served: ServedRich['served'];
  let browser: Browser;
  /** A band structure returned by a workflow and created by the calculation it called. */
  let bands: { uuid: string; calc: Linked; work: Linked };
  let hub: { uuid: string; outgoing: number };
  const tree = async (uuid: string) =>
    (
      await served.api<Tree>(
        `/nodes/${uuid}/links/tree/?in_limit=${NEIGHBOURS_PER_DIRECTION}&out_limit=${NEIGHBOURS_PER_DIRECTION}`,
      )
    ).data;

  beforeAll(async () => {
    [source, browser] = await Promise.all([serveRich(key), launchBrowser()]);
    served = source.served;
    const all = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}&orderby=id&limit=200`,
    );
    for (const b of all.data.nodes) {
      const incoming = (await tree(b.uuid)).nodes[0]!.incoming;
      const calc = incoming.find((n) => n.link_type === 'create');
      const work = incoming.find((n) => n.link_type === 'return');
      if (calc && work) {
        bands = { uuid: b.uuid, calc, work };
        break;
      }
    }
    const codes = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.code.%|%"')}&limit=100`,
    );
    for (const code of codes.data.nodes) {
      const outgoing = (await served.api<Tree>(`/nodes/${code.uuid}/links/tree/?out_limit=1&in_limit=0`)).data
        .metadata[0]!.total_no_of_outgoings;
      if (!hub || outgoing > hub.outgoing) hub = { uuid: code.uuid, outgoing };
    }
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    source?.stop();
  });

  const openPage = async (path: string, viewport = DESKTOP) => {
    const watched = await watchedPage(browser, { viewport });
    await watched.page.goto(`${served.base}${path}`);
    await watched.page.locator('#graph').scrollIntoViewIfNeeded();
    return watched;
  };
  const details = (page: Page) => page.locator('[data-testid="graph-details"]');
  /** A click on a node shows its details; its Expand adds its neighbours. */
  const clickAndExpand = async (page: Page, uuid: string) => {
    const before = await settled(page);
    // A click shows the node's details. (One sent within 250 ms of the click before, on another node, was taken by
    // cytoscape for a double click that opened this node's page: the test below shows it no longer is.)
    await clickNode(page, uuid);
    await expect.poll(() => details(page).getAttribute('data-uuid'), { timeout: 20_000 }).toBe(uuid);
    const expand = details(page).getByRole('button', { name: 'Expand' });
    await expand.click();
    // Expanded once its neighbours are drawn (on generated data a workflow's are its calculation's already).
    await expect.poll(() => expand.count(), { timeout: 20_000 }).toBe(0);
    return settled(page, before);
  };

  it('lays out three expansions of a band structure as AiiDA reads them, fits them, and keeps them in the address', async () => {
    expect(bands, 'the rich archive has a band structure a workflow returned').toBeDefined();
    const watched = await openPage(`/nodes/${bands.uuid}`);
    const { page } = watched;
    const path = new URL(page.url()).pathname;
    await settled(page, 3);
    // A marker that a navigation or reload would lose.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    // Outputs right: the band structure is right of the calculation and of the workflow that made it.
    let d = await drawn(page);
    const x = (id: string) => d.nodes.find((n) => n.id === id)!.x;
    expect(x(bands.uuid)).toBeGreaterThan(x(bands.calc.uuid));
    expect(x(bands.uuid)).toBeGreaterThan(x(bands.work.uuid));

    await clickAndExpand(page, bands.calc.uuid);
    await clickAndExpand(page, bands.work.uuid);
    const calcTree = (await tree(bands.calc.uuid)).nodes[0]!;
    const structure = calcTree.incoming.find((n) => n.node_type.startsWith('data.core.structure.'))!;
    expect(structure).toBeDefined();
    await clickAndExpand(page, structure.uuid);
    // The details came without a navigation.
    expect(new URL(page.url()).pathname).toBe(path);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await expect
      .poll(() => details(page).locator('[data-testid="formula"]').count(), { timeout: 20_000 })
      .toBe(1);

    // Inputs left of their calculation, outputs right; the workflow that called it above it.
    d = await drawn(page);
    const y = (id: string) => d.nodes.find((n) => n.id === id)!.y;
    for (const input of calcTree.incoming.filter((n) => n.link_type.startsWith('input')))
      expect(x(input.uuid), `input ${input.link_label}`).toBeLessThan(x(bands.calc.uuid));
    for (const output of calcTree.outgoing)
      expect(x(output.uuid), `output ${output.link_label}`).toBeGreaterThan(x(bands.calc.uuid));
    const caller = calcTree.incoming.find((n) => n.link_type.startsWith('call'));
    if (caller) expect(y(caller.uuid)).toBeLessThan(y(bands.calc.uuid));

    // Fit: every drawn node inside the frame, or the view at the caption limit; Zoom out never goes under it, and
    // zooms out after a Zoom in.
    const toolbar = page.getByRole('toolbar', { name: 'Graph view' });
    await toolbar.getByRole('button', { name: 'Fit' }).click();
    d = await drawn(page);
    expect(d.nodes.length).toBeGreaterThan(generated ? 10 : 15);
    expect(fitted(d)).toEqual([]);
    await toolbar.getByRole('button', { name: 'Zoom out' }).click();
    expect((await drawn(page)).zoom).toBeGreaterThanOrEqual(LEAST_ZOOM - 1e-6);
    await toolbar.getByRole('button', { name: 'Zoom in' }).click();
    const closer = (await drawn(page)).zoom;
    await toolbar.getByRole('button', { name: 'Zoom out' }).click();
    expect((await drawn(page)).zoom).toBeLessThan(closer);
    await toolbar.getByRole('button', { name: 'Fit' }).click();
    await screenshot(page, `graph-three-expansions-${key}`);

    // The address holds the three expansions and the selection; a reload draws the same nodes at the same places.
    const url = new URL(page.url());
    expect(url.searchParams.get('graph')?.split(',')).toEqual([
      bands.calc.uuid,
      bands.work.uuid,
      structure.uuid,
    ]);
    expect(url.searchParams.get('selected')).toBe(structure.uuid);
    const places = new Map(d.nodes.map((n) => [n.id, `${n.x},${n.y}`]));
    const trailLinks = page.locator('[data-testid="graph-trail"] a');
    const visited = await trailLinks.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    await page.reload();
    await settled(page, d.nodes.filter((n) => !n.id.startsWith('more:')).length);
    await expect
      .poll(() => details(page).getAttribute('data-uuid'), { timeout: 15_000 })
      .toBe(structure.uuid);
    const again = await drawn(page);
    expect(new Map(again.nodes.map((n) => [n.id, `${n.x},${n.y}`]))).toEqual(places);
    expect(fitted(again)).toEqual([]);
    // The trail survived the reload: each visited node is a link to its page.
    const trail = page.locator('[data-testid="graph-trail"] a');
    expect(await trail.count()).toBeGreaterThanOrEqual(4);
    expect(await trail.last().getAttribute('href')).toBe(`/nodes/${structure.uuid}`);
    // In the same order as before the reload, on one line.
    expect(await trail.evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(visited);
    const trailBox = (await page.locator('[data-testid="graph-trail"]').boundingBox())!;
    expect(trailBox.height).toBeLessThan(40);
    expect(watched.problems).toEqual([]);
    await page.context().close();
  });

  it('keeps a hub bounded: one column with its "N more", fitted at the caption limit', async () => {
    expect(hub.outgoing).toBeGreaterThan(2 * NEIGHBOURS_PER_DIRECTION);
    const watched = await openPage(`/nodes/${hub.uuid}`);
    const { page } = watched;
    await settled(page, 1 + NEIGHBOURS_PER_DIRECTION);
    const first = (await tree(hub.uuid)).nodes[0]!.outgoing[0]!;
    // A calculation's own page starts with its code, structure and parameters in the frame.
    const calcPage = await openPage(`/nodes/${first.uuid}`);
    await settled(calcPage.page, 4);
    expect(fitted(await drawn(calcPage.page))).toEqual([]);
    expect(calcPage.problems).toEqual([]);
    await calcPage.page.context().close();
    expect(fitted(await drawn(page))).toEqual([]);
    await clickAndExpand(page, first.uuid);
    await page.getByRole('toolbar', { name: 'Graph view' }).getByRole('button', { name: 'Fit' }).click();
    const d = await drawn(page);
    expect(fitted(d)).toEqual([]);
    const more = d.nodes.find((n) => n.id === `more:outgoing:${hub.uuid}`);
    expect(more, 'the hub\'s "N more" box is drawn').toBeDefined();
    // The hub's users are one column, no taller than the bound and its "N more".
    const column = d.nodes.filter((n) => Math.abs(n.x - more!.x) < 1);
    expect(column.length).toBeLessThanOrEqual(NEIGHBOURS_PER_DIRECTION + 2);
    await screenshot(page, `graph-hub-${key}`);
    // The "N more" box opens the paged list of those links.
    await clickNode(page, more!.id);
    await page.waitForURL(/#outgoing$/);
    expect(await page.locator('#outgoing .pager-where').textContent()).toContain(
      `of ${hub.outgoing.toLocaleString('en-US')}`,
    );
    expect(watched.problems).toEqual([]);
    await page.context().close();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    it.skipIf(!onArchive)(
      `shows details under the graph (narrower than 1600 px), goes full screen, and passes axe at ${viewport.width}×${viewport.height}`,
      async () => {
        // The picture of the first test, from its address: three expansions, a calculation selected.
        const structure = (await tree(bands.calc.uuid)).nodes[0]!.incoming.find((n) =>
          n.node_type.startsWith('data.core.structure.'),
        )!;
        const graph = [bands.calc.uuid, bands.work.uuid, structure.uuid].join(',');
        const watched = await openPage(
          `/nodes/${bands.uuid}?graph=${graph}&selected=${bands.calc.uuid}`,
          viewport,
        );
        const { page } = watched;
        await settled(page, 15);
        await expect
          .poll(() => details(page).getAttribute('data-uuid'), { timeout: 15_000 })
          .toBe(bands.calc.uuid);
        // A calculation's state is in its details.
        await expect
          .poll(() => details(page).textContent(), { timeout: 15_000 })
          .toMatch(/Finished|Failed|Excepted|Killed|Running|Waiting|Created/);
        const frame = (await page.locator('[data-testid="provenance-graph"]').boundingBox())!;
        const panel = (await page.locator('.pg-panel').boundingBox())!;
        // Beside the graph only on a screen wide enough for both; under it at these two sizes.
        expect(panel.y).toBeGreaterThanOrEqual(frame.y + frame.height);
        expect(panel.width).toBeGreaterThan(frame.width * 0.9);
        expect(fitted(await drawn(page))).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
        await screenshot(page, `graph-details-${viewport.width}`);
        if (viewport.width < 1000) {
          await page.locator('.pg-panel').scrollIntoViewIfNeeded();
          await screenshot(page, `graph-sheet-${viewport.width}`);
        }
        expect(await seriousViolations(page)).toEqual([]);

        // Full screen: the graph and its details take the window; Fit fits there; Escape leaves.
        const toolbar = page.getByRole('toolbar', { name: 'Graph view' });
        await toolbar.getByRole('button', { name: 'Full screen' }).click();
        const whole = (await page.locator('.pg-full').boundingBox())!;
        expect(whole).toEqual({ x: 0, y: 0, width: viewport.width, height: viewport.height });
        // The graph as wide as the window (less its margin), and with the details under it, the window's height.
        const bigger = (await page.locator('[data-testid="provenance-graph"]').boundingBox())!;
        expect(bigger.width).toBeGreaterThanOrEqual(Math.min(frame.width, viewport.width - 20));
        const sheet = (await page.locator('.pg-panel').boundingBox())!;
        expect(sheet.y).toBeGreaterThanOrEqual(bigger.y + bigger.height);
        expect(sheet.y + sheet.height).toBeGreaterThan(viewport.height - 40);
        expect(bigger.height).toBeGreaterThan(viewport.height * 0.45);
        await toolbar.getByRole('button', { name: 'Fit' }).click();
        expect(fitted(await drawn(page))).toEqual([]);
        await screenshot(page, `graph-full-${viewport.width}`);
        expect(await seriousViolations(page)).toEqual([]);
        await page.keyboard.press('Escape');
        expect(await page.locator('.pg-full').count()).toBe(0);
        expect(watched.problems).toEqual([]);
        await page.context().close();
      },
    );
  }

  it.skipIf(!onArchive)(
    'selects the clicked node after what is above the picture grew, with no scroll (the trail on a second line)',
    async () => {
      const watched = await openPage(`/nodes/${bands.uuid}`);
      const { page } = watched;
      await settled(page, 3);
      await page.evaluate(() => window.scrollTo(0, 0));
      // The pointer went over the picture once (where the graph reads the frame's place on the page) ...
      const frame = page.locator('[data-testid="provenance-graph"]');
      await frame.hover({ position: { x: 5, y: 5 } });
      await page.mouse.move(0, 0);
      // ... then content above it that grows late moves the frame down, with no scroll and no resize of the frame.
      await page.evaluate(() => {
        const late = document.createElement('div');
        late.style.height = '120px';
        document.querySelector('.pg-body')!.before(late);
      });
      await clickNode(page, bands.calc.uuid);
      await expect
        .poll(() => details(page).getAttribute('data-uuid'), { timeout: 20_000 })
        .toBe(bands.calc.uuid);
      expect(watched.problems).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!onArchive)(
    'selects the second of two nodes clicked one right after the other, and opens neither',
    async () => {
      // The band structure selected from the address: the details panel is open, so the clicks move nothing.
      const watched = await openPage(`/nodes/${bands.uuid}?selected=${bands.uuid}`);
      const { page } = watched;
      await settled(page, 3);
      await expect.poll(() => details(page).getAttribute('data-uuid'), { timeout: 20_000 }).toBe(bands.uuid);
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
      const [calc, work] = await page.locator('[data-testid="provenance-graph"]').evaluate(
        (element, ids) => {
          const cy = (
            element as unknown as {
              _cyreg: { cy: { getElementById(i: string): { renderedPosition(): { x: number; y: number } } } };
            }
          )._cyreg.cy;
          const box = element.getBoundingClientRect();
          return ids.map((id) => {
            const p = cy.getElementById(id).renderedPosition();
            return { x: box.left + element.clientLeft + p.x, y: box.top + element.clientTop + p.y };
          });
        },
        [bands.calc.uuid, bands.work.uuid],
      );
      // Two single clicks on two nodes, as quick as a reader's (cytoscape took them for a double click on the
      // second and opened its page).
      await page.mouse.click(calc!.x, calc!.y);
      await page.mouse.click(work!.x, work!.y);
      await expect
        .poll(() => details(page).getAttribute('data-uuid'), { timeout: 20_000 })
        .toBe(bands.work.uuid);
      expect(new URL(page.url()).pathname).toBe(`/nodes/${bands.uuid}`);
      expect(new URL(page.url()).searchParams.get('selected')).toBe(bands.work.uuid);
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
      expect(watched.problems).toEqual([]);
      await page.context().close();
    },
  );

  it.skipIf(!onArchive)(
    'is usable with the keyboard: arrow keys move between nodes, Enter shows details, + expands',
    async () => {
      const watched = await openPage(`/nodes/${bands.uuid}`);
      const { page } = watched;
      const count = await settled(page, 3);
      await page.locator('[data-testid="provenance-graph"]').focus();
      await page.keyboard.press('ArrowLeft'); // focuses the page's node first
      await page.keyboard.press('ArrowLeft'); // then a neighbour on its left: one of its makers
      await page.keyboard.press('Enter');
      const chosen = await details(page).getAttribute('data-uuid', { timeout: 15_000 });
      expect([bands.calc.uuid, bands.work.uuid]).toContain(chosen);
      await page.keyboard.press('+');
      expect(await settled(page, count + 1)).toBeGreaterThan(count);
      expect(watched.problems).toEqual([]);
      await page.context().close();
    },
  );
});
