/**
 * A structure's page in Chromium (rich data: the archive, and the PostgreSQL profile where PostgreSQL is
 * installed): the space group found by moyo in the browser is the one the
 * crystal has (silicon in the diamond structure Fd-3m, 227; rock salt Fm-3m, 225), the density follows from the
 * kinds' masses and the cell, the tolerance and the supercell can be changed without a failure; bonds join the
 * atoms that touch, and bonds and labels are turned on and off from the keyboard.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserMissing,
  launchBrowser,
  screenshot,
  serveExplorer,
  watchedPage,
  type ApiNode,
} from './support.js';
import { RICH_SOURCES, serveRich, type ServedRich } from './rich-sources.js';

const missing = browserMissing();

describe.skipIf(missing !== undefined).each(RICH_SOURCES)('structure views (rich data, %s)', (source) => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let rich: ServedRich | undefined;
  const byLabel = async (label: string) =>
    (
      await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?label=${encodeURIComponent(`"${label}"`)}&full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}&limit=1`,
      )
    ).data.nodes[0]!;

  beforeAll(async () => {
    [rich, browser] = await Promise.all([serveRich(source), launchBrowser()]);
    served = rich.served;
  });
  afterAll(async () => {
    await browser?.close();
    rich?.stop();
  });

  it('space group, density and supercell of silicon and rock salt', async () => {
    const watched = await watchedPage(browser, { viewport: { width: 1366, height: 900 } });
    const { page } = watched;
    try {
      for (const [label, symbol, number] of [
        ['Si diamond', 'Fd-3m', '227'],
        ['NaCl rocksalt', 'Fm-3m', '225'],
      ] as const) {
        const node = await byLabel(label);
        const { attributes } = (
          await served.api<{
            attributes: {
              cell: number[][];
              kinds: { name: string; mass: number }[];
              sites: { kind_name: string }[];
            };
          }>(`/nodes/${node.uuid}/contents/attributes/`)
        ).data;
        await page.goto(`${served.base}/nodes/${node.uuid}`);
        const number_ = page.locator('[data-testid="space-group-number"]');
        await expect.poll(() => number_.textContent(), { timeout: 20_000 }).toBe(number);
        expect(await page.locator('[data-testid="space-group-symbol"]').textContent()).toBe(symbol);
        // Density: the kinds' masses over the cell's volume.
        const [a, b, c] = attributes.cell as [number[], number[], number[]];
        const volume = Math.abs(
          a[0]! * (b[1]! * c[2]! - b[2]! * c[1]!) -
            a[1]! * (b[0]! * c[2]! - b[2]! * c[0]!) +
            a[2]! * (b[0]! * c[1]! - b[1]! * c[0]!),
        );
        const mass = attributes.sites.reduce(
          (sum, s) => sum + attributes.kinds.find((k) => k.name === s.kind_name)!.mass,
          0,
        );
        const shown = parseFloat((await page.locator('[data-testid="density"]').textContent())!);
        expect(shown).toBeCloseTo((mass * 1.6605390666) / volume, 3);
        if (label === 'Si diamond') expect(shown).toBeCloseTo(2.33, 1);
        // A tighter tolerance keeps an exact crystal's group; a 2×2×2 supercell is drawn without a failure.
        await page.getByLabel('Tolerance').selectOption('0.00001');
        await expect.poll(() => number_.textContent()).toBe(number);
        await page.getByRole('group', { name: 'Supercell' }).getByLabel('a').selectOption('2');
        await page.getByRole('group', { name: 'Supercell' }).getByLabel('b').selectOption('2');
        await page.getByRole('group', { name: 'Supercell' }).getByLabel('c').selectOption('2');
        await page.waitForTimeout(300);
        if (label === 'Si diamond' && source === 'archive') await screenshot(page, 'structure-si-supercell');
      }
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('bonds and labels are toggled from the keyboard, bonds where atoms touch', async () => {
    const watched = await watchedPage(browser, { viewport: { width: 1366, height: 900 } });
    const { page } = watched;
    // Covalent radii (Å) of the elements drawn here; a bond is shorter than their sum times 1.15.
    const radius: Record<string, number> = { Si: 1.11, Na: 1.54, Cl: 0.99 };
    try {
      for (const label of ['Si diamond', 'NaCl rocksalt']) {
        const node = await byLabel(label);
        const { attributes } = (
          await served.api<{
            attributes: {
              kinds: { name: string; symbols: string[] }[];
              sites: { kind_name: string; position: number[] }[];
            };
          }>(`/nodes/${node.uuid}/contents/attributes/`)
        ).data;
        const atoms = attributes.sites.map((s) => ({
          symbol: attributes.kinds.find((k) => k.name === s.kind_name)!.symbols[0]!,
          position: s.position,
        }));
        let expected = 0;
        for (let i = 0; i < atoms.length; i++)
          for (let j = i + 1; j < atoms.length; j++) {
            const [p, q] = [atoms[i]!, atoms[j]!];
            const d = Math.hypot(...p.position.map((x, k) => x - q.position[k]!));
            if (d <= (radius[p.symbol]! + radius[q.symbol]!) * 1.15) expected++;
          }
        expect(expected).toBeGreaterThan(0);
        await page.goto(`${served.base}/nodes/${node.uuid}`);
        const view = page.getByTestId('structure-3d');
        await expect.poll(() => view.getAttribute('data-bonds'), { timeout: 20_000 }).toBe(String(expected));
        expect(await view.getAttribute('data-labels')).toBe('0');
        // From the last supercell control, Tab reaches the toggles; Space flips them.
        await page.getByRole('group', { name: 'Supercell' }).getByLabel('c').focus();
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.parentElement?.textContent?.trim())).toBe(
          'Bonds',
        );
        await page.keyboard.press('Space');
        await expect.poll(() => view.getAttribute('data-bonds')).toBe('0');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Space');
        await expect.poll(() => view.getAttribute('data-labels')).toBe(String(atoms.length));
        expect(await page.getByLabel('Labels').isChecked()).toBe(true);
        if (label === 'NaCl rocksalt' && source === 'archive')
          await screenshot(page, 'structure-nacl-labels');
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Space');
        await expect.poll(() => view.getAttribute('data-bonds')).toBe(String(expected));
      }
      expect(watched.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
