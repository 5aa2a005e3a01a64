/**
 * Plots in Chromium (rich data: the archive, and the PostgreSQL profile where PostgreSQL is installed): a band
 * structure's value under the pointer, its energy window and reference energy; a pseudopotential's radial
 * functions as its json download has them. On a generated archive: the Fermi energy line.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallArchive } from '../helpers.js';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type ApiNode } from './support.js';
import { RICH_SOURCES, serveRich, type ServedRich } from './rich-sources.js';

const missing = browserMissing();

describe.skipIf(missing !== undefined).each(RICH_SOURCES)('plots (rich data, %s)', (source) => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let rich: ServedRich | undefined;

  beforeAll(async () => {
    [rich, browser] = await Promise.all([serveRich(source), launchBrowser()]);
    served = rich.served;
  });
  afterAll(async () => {
    await browser?.close();
    rich?.stop();
  });

  it('reads out values under the pointer; a window and a reference energy move the axis, Reset restores it', async () => {
    const [bands] = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}&orderby=id&limit=1`,
      )
    ).data.nodes;
    const json = (await (
      await fetch(`${served.base}/api/v4/nodes/${bands!.uuid}/download/?download_format=json`)
    ).json()) as { paths: { values: number[][] }[] };
    const energies = json.paths.flatMap((p) => p.values.flat());
    const [low, high] = [Math.min(...energies), Math.max(...energies)];
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${bands!.uuid}`);
      const plot = page.locator('[data-testid="bands-plot"]');
      await plot.waitFor({ timeout: 20_000 });
      const yTicks = async () =>
        (await plot.locator(':scope > g > text[text-anchor="end"]').allTextContents()).map(Number);

      await plot.scrollIntoViewIfNeeded();
      const readout = page.locator('[data-testid="plot-readout"] text');
      // Moved at each look: on a busy machine the plot may still be laid out again after a first move, which then
      // shows nothing, and a pointer that does not move makes no event.
      let moves = 0;
      await expect
        .poll(
          async () => {
            const box = (await plot.boundingBox())!;
            await page.mouse.move(box.x + box.width / 2 + (moves++ % 2), box.y + box.height / 2);
            return (await readout.count()) > 0 ? readout.first().textContent() : undefined;
          },
          { timeout: 15_000 },
        )
        .toMatch(/^band \d+: -?\d+\.\d{4} at \d+\.\d{4}$/);

      const form = page.getByRole('form', { name: 'Energy axis' });
      const middle = (low + high) / 2;
      await form.getByLabel('Window from').fill(String(Math.floor(middle - 1)));
      await form.getByLabel('to', { exact: true }).fill(String(Math.ceil(middle + 1)));
      await form.getByRole('button', { name: 'Apply' }).click();
      await expect
        .poll(async () =>
          (await yTicks()).every((t) => t >= Math.floor(middle - 1) && t <= Math.ceil(middle + 1)),
        )
        .toBe(true);

      await form.getByRole('button', { name: 'Reset' }).click();
      await form.getByLabel(/^Reference energy/).fill(String(high));
      await form.getByRole('button', { name: 'Apply' }).click();
      // Relative to the highest energy, every band lies at or below zero.
      await expect.poll(async () => Math.min(...(await yTicks()))).toBeLessThanOrEqual(Math.ceil(low - high));
      expect(Math.max(...(await yTicks()))).toBeLessThanOrEqual(Math.ceil((high - low) * 0.1) + 1);
      expect(await plot.textContent()).toContain(`E − ${high}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('zooms on a dragged box and with the buttons (keyboard), and Reset zoom shows the whole plot again', async () => {
    const [bands] = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}&orderby=id&limit=1`,
      )
    ).data.nodes;
    const watched = await watchedPage(browser, { viewport: { width: 1366, height: 900 } });
    const { page } = watched;
    const domain = async (axis: 'x' | 'y') =>
      (await plot.getAttribute(`data-${axis}-domain`))!.split(' ').map(Number) as [number, number];
    const plot = page.locator('[data-testid="bands-plot"]');
    try {
      await page.goto(`${served.base}/nodes/${bands!.uuid}`);
      await plot.waitFor({ timeout: 20_000 });
      await plot.scrollIntoViewIfNeeded();
      const [x0, y0] = [await domain('x'), await domain('y')];
      const zoom = page.getByRole('group', { name: /^Zoom of / });
      expect(await zoom.getByRole('button', { name: 'Reset zoom' }).isDisabled()).toBe(true);

      // A box from a quarter to a half of the frame, both ways: both axes narrow to about a quarter.
      const box = (await plot.boundingBox())!;
      const at = (fx: number, fy: number) => [box.x + box.width * fx, box.y + box.height * fy] as const;
      await page.mouse.move(...at(0.3, 0.3));
      await page.mouse.down();
      await page.mouse.move(...at(0.45, 0.4), { steps: 4 });
      await page.mouse.move(...at(0.55, 0.5), { steps: 4 });
      await page.mouse.up();
      await expect.poll(async () => (await domain('x'))[0]).toBeGreaterThan(x0[0]);
      const [x1, y1] = [await domain('x'), await domain('y')];
      const span = (d: [number, number]) => d[1] - d[0];
      expect(span(x1)).toBeLessThan(span(x0) * 0.4);
      expect(span(y1)).toBeLessThan(span(y0) * 0.4);
      expect(x1[0]).toBeGreaterThanOrEqual(x0[0]);
      expect(y1[1]).toBeLessThanOrEqual(y0[1]);
      // The y ticks follow the zoom.
      const ticks = (await plot.locator(':scope > g > text[text-anchor="end"]').allTextContents()).map(
        Number,
      );
      expect(ticks.every((t) => t >= y1[0] - 1e-9 && t <= y1[1] + 1e-9)).toBe(true);

      // From the keyboard: Zoom out goes back towards the whole plot, Reset zoom all the way.
      const out = zoom.getByRole('button', { name: 'Zoom out' });
      await out.focus();
      await page.keyboard.press('Enter');
      await expect.poll(async () => span(await domain('x'))).toBeCloseTo(span(x1) * 2, 4);
      await zoom.getByRole('button', { name: 'Reset zoom' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => domain('x')).toEqual(x0);
      expect(await domain('y')).toEqual(y0);
      await zoom.getByRole('button', { name: 'Zoom in' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(async () => span(await domain('y'))).toBeCloseTo(span(y0) / 2, 4);
      // A click (no drag) is not a zoom.
      const before = await domain('x');
      await page.mouse.click(...at(0.5, 0.5));
      expect(await domain('x')).toEqual(before);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("plots a pseudopotential's radial functions from its json download: projectors, then wave functions", async () => {
    const [upf] = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?full_type=${encodeURIComponent('"data.core.upf.UpfData.|"')}&orderby=id&limit=1`,
      )
    ).data.nodes;
    const json = (await (
      await fetch(`${served.base}/api/v4/nodes/${upf!.uuid}/download/?download_format=json`)
    ).json()) as {
      pseudo_potential: { beta_projectors: { label: string }[]; atomic_wave_functions: { label: string }[] };
    };
    const { beta_projectors: beta, atomic_wave_functions: wfc } = json.pseudo_potential;
    expect(beta.length).toBeGreaterThan(0);
    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${upf!.uuid}`);
      const plot = page.locator('[data-testid="radial-plot"]');
      await plot.waitFor({ timeout: 20_000 });
      const drawn = () =>
        plot
          .locator('g[clip-path] path')
          .evaluateAll((paths) => paths.filter((p) => (p.getAttribute('d') ?? '').length > 10).length);
      expect(await drawn()).toBe(beta.length);
      const legend = await page.locator('[data-testid="radial-legend"] > span').allTextContents();
      expect(legend.map((t) => t.split(' (')[0])).toEqual(beta.map((b) => b.label));
      await page.getByRole('button', { name: 'Atomic wave functions χ(r)' }).click();
      await expect.poll(drawn).toBe(wfc.length);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("draws a k-point set's Brillouin zone (the server's faces) with its points, and turns it with the keyboard", async () => {
    const sets = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.array.kpoints.KpointsData.|"')}&orderby=id&limit=50`,
    );
    let found: { node: ApiNode; faces: number; points: number } | undefined;
    for (const node of sets.data.nodes) {
      const derived = (
        await served.api<{
          derived_properties: { faces_data?: { faces: unknown[] }; explicit_kpoints_abs?: unknown[] };
        }>(`/nodes/${node.uuid}/contents/derived_properties/`)
      ).data.derived_properties;
      if (derived.faces_data && derived.explicit_kpoints_abs) {
        found = { node, faces: derived.faces_data.faces.length, points: derived.explicit_kpoints_abs.length };
        break;
      }
    }
    expect(found).toBeDefined();
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${found!.node.uuid}`);
      const zone = page.locator('[data-testid="brillouin-zone"]');
      await zone.waitFor({ timeout: 20_000 });
      expect(await zone.locator('polygon').count()).toBe(found!.faces);
      expect(await zone.locator('circle').count()).toBe(found!.points);
      const before = await zone.locator('polygon').first().getAttribute('points');
      await zone.focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => zone.locator('polygon').first().getAttribute('points')).not.toBe(before);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});

/**
 * The Fermi energy on generated data (the rich data's calculations report none): the generator's pw.x
 * calculations give `fermi_energy` in their output parameters, as Quantum ESPRESSO's do.
 */
describe.skipIf(missing !== undefined)('the Fermi energy of a band structure (generated archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([await smallArchive(600, 3)]), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  it("draws the creating calculation's Fermi energy as a line, and takes it as the reference on request", async () => {
    const [bands] = (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}&orderby=id&limit=1`,
      )
    ).data.nodes;
    expect(bands, 'the generated archive has a band structure').toBeDefined();
    const creator = (
      await served.api<{ incoming: (ApiNode & { link_type: string })[] }>(
        `/nodes/${bands!.uuid}/links/incoming/`,
      )
    ).data.incoming.find((l) => l.link_type === 'create')!;
    const outputs = (
      await served.api<{ outgoing: (ApiNode & { link_label: string })[] }>(
        `/nodes/${creator.uuid}/links/outgoing/`,
      )
    ).data.outgoing;
    const parameters = outputs.find((o) => o.link_label === 'output_parameters')!;
    const { attributes } = (
      await served.api<{ attributes: { fermi_energy: number } }>(
        `/nodes/${parameters.uuid}/contents/attributes/`,
      )
    ).data;
    const fermi = attributes.fermi_energy;
    expect(typeof fermi).toBe('number');

    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      await page.goto(`${served.base}/nodes/${bands!.uuid}`);
      await expect
        .poll(() => page.locator('[data-testid="fermi-energy"]').textContent(), { timeout: 20_000 })
        .toContain(`Fermi energy ${+fermi.toPrecision(8)} eV`);
      const marker = page.locator('[data-testid="bands-plot"] [data-testid="plot-marker"]');
      expect(Number(await marker.getAttribute('data-y'))).toBeCloseTo(fermi, 6);
      // Taken as the reference, the line is at zero and the address keeps it.
      await page.getByRole('button', { name: 'Use as reference' }).click();
      await expect.poll(() => marker.getAttribute('data-y')).toBe('0');
      expect(new URL(page.url()).searchParams.get('ref')).toBe(String(fermi));
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
