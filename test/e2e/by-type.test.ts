/**
 * The by-type views and the provenance graph in Chromium, on the rich conformance archive: what each shows agrees
 * with the API's answers, nothing failed and the page logged no error.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewKind } from '../../web/src/by-type/logic/choose.js';
import { NEIGHBOURS_PER_DIRECTION } from '../../web/src/by-type/logic/graph.js';
import {
  browserMissing,
  launchBrowser,
  screenshot,
  serveExplorer,
  watchedPage,
  type ApiNode,
  type WatchedPage,
} from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();

/** How many pixels of a PNG differ clearly from its top-left pixel (the background), counted in the page. */
async function drawnPixels(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (b64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${b64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [image.width, image.height];
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      const d =
        Math.abs(data[i]! - data[0]!) + Math.abs(data[i + 1]! - data[1]!) + Math.abs(data[i + 2]! - data[2]!);
      if (d > 60) count++;
    }
    return count;
  }, png.toString('base64'));
}

describe.skipIf(missing !== undefined)('by-type views in Chromium (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  const first = async (fullType: string, n = 1) =>
    (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/page/1/?perpage=${n}&orderby=id&full_type=${encodeURIComponent(`"${fullType}"`)}`,
      )
    ).data.nodes;

  beforeAll(async () => {
    served = await serveExplorer([richFile('rich.aiida')]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  const open = async (uuid: string): Promise<WatchedPage> => {
    const watched = await watchedPage(browser);
    await watched.page.goto(`${served.base}/nodes/${uuid}`);
    return watched;
  };
  const finish = async (watched: WatchedPage) => {
    expect(watched.problems).toEqual([]);
    await watched.page.context().close();
  };

  it('draws a structure in 3D with the formula and cell the API gives, and its provenance graph opens neighbours', async () => {
    const [structure] = await first('data.core.structure.StructureData.|');
    const { attributes } = (
      await served.api<{ attributes: { cell: number[][] } }>(`/nodes/${structure!.uuid}/contents/attributes/`)
    ).data;
    const { derived_properties: derived } = (
      await served.api<{ derived_properties: { formula: string } }>(
        `/nodes/${structure!.uuid}/contents/derived_properties/`,
      )
    ).data;
    const watched = await open(structure!.uuid);
    const { page } = watched;

    const canvas = page.locator('[data-testid="structure-3d"] canvas').first();
    await canvas.waitFor({ state: 'visible', timeout: 30_000 });
    await page.waitForTimeout(500);
    expect(await drawnPixels(page, await canvas.screenshot())).toBeGreaterThan(500);
    expect(await page.locator('[data-testid="formula"]').textContent()).toBe(derived.formula);
    const a = Math.hypot(...attributes.cell[0]!);
    const shownA = await page.locator('[data-testid="cell-parameters"] tbody td').first().textContent();
    expect(Number(shownA)).toBeCloseTo(a, 4);
    await screenshot(page, 'by-type-structure');

    // The graph: the node and its neighbours as links/tree answers them.
    const tree = (
      await served.api<{ nodes: Array<{ incoming: ApiNode[]; outgoing: ApiNode[] }> }>(
        `/nodes/${structure!.uuid}/links/tree/?in_limit=${NEIGHBOURS_PER_DIRECTION}&out_limit=${NEIGHBOURS_PER_DIRECTION}`,
      )
    ).data.nodes[0]!;
    const neighbours = [...tree.incoming, ...tree.outgoing];
    expect(neighbours.length).toBeGreaterThan(0);
    const graph = page.locator('[data-testid="provenance-graph"]');
    await graph.scrollIntoViewIfNeeded();
    await page
      .locator('[data-testid="graph-nodes"] li')
      .nth(neighbours.length)
      .waitFor({ state: 'attached', timeout: 20_000 });
    expect(await page.locator('[data-testid="graph-nodes"] li').count()).toBe(
      1 + new Set(neighbours.map((n) => n.uuid)).size,
    );
    expect(await drawnPixels(page, await graph.screenshot())).toBeGreaterThan(500);
    await screenshot(page, 'by-type-provenance-graph');

    // A click on a neighbour shows its details; their Expand adds its own neighbourhood (cytoscape keeps its
    // instance on the container).
    const target = neighbours[0]!;
    const where = async (uuid: string) =>
      graph.evaluate((element, id) => {
        interface Element {
          renderedPosition(): { x: number; y: number };
        }
        const cy = (
          element as unknown as {
            _cyreg: { cy: { getElementById(i: string): Element; center(e: Element): void } };
          }
        )._cyreg.cy;
        // A graph too big to show at a readable size is moved, as a person would, to bring the node into view.
        cy.center(cy.getElementById(id));
        const box = element.getBoundingClientRect();
        const p = cy.getElementById(id).renderedPosition();
        return { x: box.left + p.x, y: box.top + p.y };
      }, uuid);
    const before = await page.locator('[data-testid="graph-nodes"] li').count();
    const point = await where(target.uuid);
    await page.mouse.click(point.x, point.y);
    await expect
      .poll(() => page.locator('[data-testid="graph-selection"]').textContent(), { timeout: 10_000 })
      .toContain(`${target.id}`);
    await page.locator('[data-testid="graph-details"]').getByRole('button', { name: 'Expand' }).click();
    const targetTree = (
      await served.api<{ nodes: Array<{ incoming: ApiNode[]; outgoing: ApiNode[] }> }>(
        `/nodes/${target.uuid}/links/tree/?in_limit=${NEIGHBOURS_PER_DIRECTION}&out_limit=${NEIGHBOURS_PER_DIRECTION}`,
      )
    ).data.nodes[0]!;
    const known = new Set([structure!.uuid, ...neighbours.map((n) => n.uuid)]);
    const fresh = new Set(
      [...targetTree.incoming, ...targetTree.outgoing].map((n) => n.uuid).filter((u) => !known.has(u)),
    );
    await expect
      .poll(() => page.locator('[data-testid="graph-nodes"] li').count(), { timeout: 15_000 })
      .toBe(before + fresh.size);

    // A double click opens the neighbour's page (the graph scrolled back into view: the details, and their Expand,
    // are under it).
    await graph.scrollIntoViewIfNeeded();
    const again = await where(target.uuid);
    await page.mouse.dblclick(again.x, again.y);
    await page.waitForURL(`**/nodes/${target.uuid}`, { timeout: 10_000 });
    await finish(watched);
  });

  it('plots a band structure with the labels and positions of its json download', async () => {
    const [bands] = await first('data.core.array.bands.BandsData.|');
    const response = await fetch(`${served.base}/api/v4/nodes/${bands!.uuid}/download/?download_format=json`);
    const json = (await response.json()) as {
      paths: Array<{ from: string; to: string; x: number[]; values: number[][] }>;
    };
    // Each path's first and last k-point carry its labels; two labels at one position read "A|B".
    const expected: Array<{ x: number; label: string }> = [];
    for (const p of json.paths) {
      for (const [x, label] of [
        [p.x[0]!, p.from],
        [p.x[p.x.length - 1]!, p.to],
      ] as const) {
        const last = expected[expected.length - 1];
        if (last && Math.abs(last.x - x) < 1e-9) {
          if (last.label !== label) last.label += `|${label}`;
        } else expected.push({ x, label });
      }
    }
    const watched = await open(bands!.uuid);
    const { page } = watched;
    const plot = page.locator('[data-testid="bands-plot"]');
    await plot.waitFor({ timeout: 20_000 });
    const shown = await plot
      .locator('.bt-kpoint-label text')
      .evaluateAll((texts) =>
        texts.map((t) => ({ x: Number(t.getAttribute('data-x')), label: t.getAttribute('data-label') })),
      );
    expect(shown).toEqual(expected);
    const lines = await plot
      .locator('path')
      .evaluateAll((paths) => paths.filter((p) => (p.getAttribute('d') ?? '').length > 10).length);
    expect(lines).toBe(json.paths.reduce((n, p) => n + p.values.length, 0));
    expect(await drawnPixels(page, await plot.screenshot())).toBeGreaterThan(1000);
    await screenshot(page, 'by-type-bands');
    await finish(watched);
  });

  it('shows a calculation: state, exit status, report, input files with a preview, output files', async () => {
    // A calcjob that logged something and has a retrieved folder.
    const calcs = await first('process.calculation.calcjob.CalcJobNode.|%', 40);
    let chosen:
      { node: ApiNode; logs: Array<{ message: string }>; attributes: Record<string, unknown> } | undefined;
    for (const node of calcs) {
      const logs = (await served.api<{ logs: Array<{ message: string }> }>(`/processes/${node.uuid}/report/`))
        .data.logs;
      const out = (await served.api<unknown>(`/calcjobs/${node.uuid}/output_files/`)).data;
      if (logs.length > 0 && Array.isArray(out) && out.length > 0) {
        const { attributes } = (
          await served.api<{ attributes: Record<string, unknown> }>(
            `/nodes/${node.uuid}/contents/attributes/`,
          )
        ).data;
        chosen = { node, logs, attributes };
        break;
      }
    }
    expect(chosen, 'a calcjob with a report and output files in the rich archive').toBeDefined();
    const { node, logs, attributes } = chosen!;
    const inputs = (
      await served.api<Array<{ name: string; type: string }>>(`/calcjobs/${node.uuid}/input_files/`)
    ).data;
    const file = inputs.find((f) => f.type === 'FILE')!;
    const contents = await (
      await fetch(
        `${served.base}/api/v4/nodes/${node.uuid}/repo/contents/?filename=${encodeURIComponent(`"${file.name}"`)}`,
      )
    ).text();

    const watched = await open(node.uuid);
    const { page } = watched;
    // The summary says the state and exit code; the process's own view does not say them again.
    const state = page.locator('[data-testid="summary-state"]');
    await state.waitFor({ timeout: 20_000 });
    expect(await state.textContent()).toBe(attributes.process_state);
    if (attributes.exit_status !== undefined)
      expect(await page.locator('[data-testid="summary-exit"]').textContent()).toContain(
        `exit code ${attributes.exit_status}`,
      );
    await page.locator('#bt-process').waitFor();
    expect(await page.locator('[data-testid="exit-status"]').count()).toBe(0);
    await page.locator('[data-testid="report"] tbody tr').first().waitFor();
    expect(await page.locator('[data-testid="report"] tbody tr').count()).toBe(logs.length);
    expect(await page.locator('[data-testid="report"]').textContent()).toContain(logs[0]!.message);

    const input = page.locator('[data-testid="input-files"]');
    for (const f of inputs) await expect.poll(() => input.textContent()).toContain(f.name);
    await input.getByRole('button', { name: file.name, exact: true }).click();
    const preview = input.locator('.preview pre');
    await preview.waitFor({ timeout: 10_000 });
    expect(await preview.textContent()).toBe(contents);
    await expect
      .poll(() => page.locator('[data-testid="output-files"]').textContent())
      .toContain('aiida.out');
    await input.scrollIntoViewIfNeeded();
    await screenshot(page, 'by-type-calculation', { fullPage: true });
    await finish(watched);
  });

  it('shows each view without a problem (one node of each kind of view)', async () => {
    interface TypeCount {
      full_type: string;
      subspaces: TypeCount[];
    }
    const leaves: string[] = [];
    const walk = (t: TypeCount) =>
      t.subspaces.length ? t.subspaces.forEach(walk) : leaves.push(t.full_type);
    walk((await served.api<TypeCount>('/nodes/full_types_count/')).data);
    const watched = await watchedPage(browser);
    const { page } = watched;
    const seen = new Set<string>();
    for (const fullType of leaves) {
      const [node] = await first(fullType);
      const kind = node && viewKind(node.node_type);
      if (!node || kind === undefined || seen.has(kind)) continue;
      seen.add(kind);
      await page.goto(`${served.base}/nodes/${node.uuid}`);
      const view = page.locator('#view [data-view]');
      await view.waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('#view .loading').count(), { timeout: 20_000 }).toBe(0);
      expect([fullType, await page.locator('#view .problem').allTextContents()]).toEqual([fullType, []]);
      expect(await view.locator('h3').count(), fullType).toBeGreaterThan(0);
    }
    expect([...seen].sort()).toEqual([
      'array',
      'bands',
      'cif',
      'code',
      'kpoints',
      'process',
      'remote',
      'structure',
      'trajectory',
      'upf',
      'value',
      'xy',
    ]);
    await finish(watched);
  });

  it('says in the page what went wrong when a view cannot get its data (no blank view, no endless spinner)', async () => {
    const [bands] = await first('data.core.array.bands.BandsData.|');
    const watched = await watchedPage(browser);
    const { page } = watched;
    // The server fails the download the band view reads; the rest of the page is answered as usual.
    watched.expect(/\/download\//, 503);
    await page.route(/\/download\/\?download_format=json&download=false/, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'the database is busy, try again' }),
      }),
    );
    await page.goto(`${served.base}/nodes/${bands!.uuid}`);
    const problem = page.locator('#view .problem');
    await problem.waitFor({ timeout: 20_000 });
    expect(await problem.textContent()).toContain('the database is busy, try again');
    expect(await page.locator('#view .loading').count()).toBe(0);
    await finish(watched);
  });
});
