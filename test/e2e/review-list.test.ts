/**
 * The explorer's lists and pages on the rich data (the archive), in Chromium at 1366x900: what a reader sees
 * of a home shortcut's type, of a short label search, of the structures of an element and of band structures
 * without labels, and of a process's and a structure's page.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { browserMissing, watchedPage, type ApiNode } from './support.js';
import { richExplorer } from './rich-sources.js';

const missing = browserMissing();
const DESKTOP = { width: 1366, height: 900 };

describe.skipIf(missing !== undefined)('the explorer on the rich archive', () => {
  const rich = richExplorer('archive');

  it("a home shortcut's type reads as its name in the type menu", async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    await page.goto(`${rich.served.base}/`);
    await page
      .getByRole('link', { name: /Band structures/ })
      .first()
      .click();
    await page.locator('table.nodes tbody tr').first().waitFor();
    // Once the type tree is there (before it, the pattern's last word).
    const select = page.locator('select[name="type"]');
    await expect
      .poll(() => select.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]!.text.trim()), {
        timeout: 20_000,
      })
      .toBe('BandsData');
    expect(await select.locator('option').allInnerTexts()).not.toContain('data.core.array.bands.%|');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a short label search matches words: "Si" lists "Si diamond" and "CIF Si2", not "singlefile-0"', async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    await page.goto(`${rich.served.base}/nodes?label=Si&perpage=200`);
    await page.locator('table.nodes tbody tr').first().waitFor();
    const labels = await page.locator('table.nodes tbody tr td:nth-child(2)').allInnerTexts();
    expect(labels.some((l) => l.startsWith('Si diamond'))).toBe(true);
    expect(labels.some((l) => l.startsWith('CIF Si2'))).toBe(true);
    expect(labels.filter((l) => /singlefile/i.test(l))).toEqual([]);
    // A longer text is still a substring.
    await page.goto(`${rich.served.base}/nodes?label=singlef&perpage=200`);
    await page.locator('table.nodes tbody tr').first().waitFor();
    const longer = await page.locator('table.nodes tbody tr td:nth-child(2)').allInnerTexts();
    expect(longer.filter((l) => /singlefile/.test(l)).length).toBeGreaterThanOrEqual(7);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('"Structures with Si" says the type of each: structures and CIFs apart', async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    await page.goto(`${rich.served.base}/nodes?label=Si`);
    const table = page.locator('.structure-matches table');
    await table.locator('tbody tr td[data-field="type"]:not(:empty)').first().waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toContain('Type');
    const types = await table.locator('tbody td[data-field="type"]').allInnerTexts();
    expect(new Set(types)).toEqual(new Set(['StructureData', 'CifData']));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("a CIF's formula is the same in every list and on its page: its unit cell's content", async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    const [cif] = await rich.nodesOfType(
      'data.core.cif.CifData.|',
      `&label=${encodeURIComponent('"Si.cif (aiida static)"')}`,
    );
    await page.goto(
      `${rich.served.base}/nodes?type=${encodeURIComponent('data.core.cif.CifData.|')}&perpage=50`,
    );
    const row = page.locator('table.nodes tbody tr', { has: page.locator(`a[href$="${cif!.uuid}"]`) });
    await expect.poll(() => row.locator('td:nth-child(2)').innerText(), { timeout: 20_000 }).toContain('Si8');
    const mos2 = page.locator('table.nodes tbody tr', { hasText: 'CIF MoS2' });
    await expect.poll(() => mos2.locator('td:nth-child(2)').innerText()).toContain('MoS2');
    expect(await page.locator('table.nodes').innerText()).not.toMatch(/Mo1 S2/);
    await page.goto(`${rich.served.base}/nodes?label=Si`);
    const match = page.locator(`.structure-matches tr[data-uuid="${cif!.uuid}"] td`).first();
    await expect.poll(() => match.innerText(), { timeout: 20_000 }).toBe('Si8');
    await page.goto(`${rich.served.base}/nodes/${cif!.uuid}`);
    await expect.poll(() => page.getByTestId('formula').textContent(), { timeout: 20_000 }).toBe('Si8');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a 2D sheet shows its areal density, a molecule and a chain none', async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    const structures = await rich.nodesOfType<ApiNode & { attributes: Record<string, unknown> }>(
      'data.core.structure.StructureData.|',
      '&attributes=true&attributes_filter=pbc1,pbc2,pbc3',
    );
    const byLabel = (label: string) => structures.find((s) => s.label === label)!;
    await page.goto(`${rich.served.base}/nodes/${byLabel('MoS2 monolayer').uuid}`);
    const density = page.getByTestId('density');
    await density.waitFor({ timeout: 20_000 });
    // Mo S2 (160.07 amu) on a hexagonal plane of a = 3.19 Å: about 3.0 mg/m², the vacuum left out.
    const [value, unit] = (await density.textContent())!.split(' ');
    expect(unit).toBe('mg/m²');
    expect(Number(value)).toBeGreaterThan(2.5);
    expect(Number(value)).toBeLessThan(3.5);
    for (const label of ['water molecule', 'carbon chain']) {
      await page.goto(`${rich.served.base}/nodes/${byLabel(label).uuid}`);
      await page.getByTestId('formula').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('density').count(), label).toBe(0);
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('"bands Si2" is on the first page of band structures, the unlabelled ones named by what they were computed for', async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    await page.goto(
      `${rich.served.base}/nodes?type=${encodeURIComponent('data.core.array.bands.BandsData.|')}`,
    );
    const labels = page.locator('table.nodes tbody tr td:nth-child(2)');
    await expect.poll(() => labels.allInnerTexts(), { timeout: 20_000 }).toContain('bands Si2');
    const shown = await labels.allInnerTexts();
    const firstUnlabelled = shown.findIndex((l) => !l.startsWith('bands '));
    expect(shown.slice(firstUnlabelled).every((l) => !l.startsWith('bands '))).toBe(true);
    await expect
      .poll(() =>
        page.locator('table.nodes tbody tr td:nth-child(2) > a [data-field="computed-for"]').count(),
      )
      .toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("a process's page on a desktop gives its view the whole width: the report's times on one line", async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    const [calc] = await rich.nodesOfType(
      'process.calculation.calcjob.CalcJobNode.|aiida.calculations:quantumespresso.pw',
    );
    await page.goto(`${rich.served.base}/nodes/${calc!.uuid}`);
    const view = page.locator('.node-view');
    await page.locator('[data-testid="input-files"]').waitFor({ timeout: 20_000 });
    const width = await view.evaluate((e) => e.getBoundingClientRect().width);
    const main = await page.locator('.node-top').evaluate((e) => e.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(0.95 * main);
    const time = page.locator('[data-testid="report"] tbody tr td:first-child').first();
    if ((await time.count()) > 0) {
      const lineHeight = await time.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight) || 20);
      expect(await time.evaluate((e) => e.getBoundingClientRect().height)).toBeLessThan(1.5 * lineHeight + 8);
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the 3D view is large, turns to look along a, b and c, and saves a PNG and a POSCAR', async () => {
    const { page, problems } = await watchedPage(rich.browser, { viewport: DESKTOP });
    const [si] = await rich.nodesOfType(
      'data.core.structure.StructureData.|',
      `&label=${encodeURIComponent('"Si diamond"')}`,
    );
    await page.goto(`${rich.served.base}/nodes/${si!.uuid}`);
    const view = page.getByTestId('structure-3d');
    await view.waitFor({ timeout: 20_000 });
    const box = (await view.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(600);
    expect(box.width).toBeGreaterThanOrEqual(700);
    for (const axis of ['a', 'b', 'c']) await page.getByRole('button', { name: `Along ${axis}` }).click();
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save PNG' }).click(),
    ]);
    expect(png.suggestedFilename()).toBe('Si_diamond.png');
    const image = await readFile(await png.path());
    expect([...image.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'POSCAR' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe('Si_diamond.poscar');
    const lines = (await readFile(await file.path(), 'utf8')).trimEnd().split('\n');
    const { data } = await rich.served.api<{
      attributes: { cell: number[][]; sites: { position: number[] }[] };
    }>(`/nodes/${si!.uuid}/contents/attributes/`);
    expect(lines[0]).toBe('Si diamond');
    expect(lines.slice(2, 5).map((l) => l.trim().split(/\s+/).map(Number))).toEqual(data.attributes.cell);
    expect(lines.slice(5, 8)).toEqual(['Si', String(data.attributes.sites.length), 'Cartesian']);
    expect(lines.slice(8).map((l) => l.trim().split(/\s+/).map(Number))).toEqual(
      data.attributes.sites.map((s) => s.position),
    );
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
