/**
 * Every state a reader sets on a page is in its address and comes back on reload (rich data as the archive and,
 * where PostgreSQL is installed, as a profile; a generated archive of 10^5 nodes; Chromium): the file previewed,
 * the band plot's zoom and reference energy, a structure's supercell and symmetry tolerance. And the layout holds
 * on a phone: band-plot tick labels readable, numbers and badges never broken across lines, a CIF's space group
 * found and the file's own labelled as declared.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { browserMissing, watchedPage, type ApiNode } from './support.js';
import { ALL_SOURCES, richExplorer } from './rich-sources.js';

const missing = browserMissing();
const PHONE = { width: 390, height: 844 };

describe.skipIf(missing !== undefined).each(ALL_SOURCES)(
  'deep links and phone layout, served from the %s source',
  (source) => {
    const rich = richExplorer(source);

    const first = (fullType: string, extra = '') => rich.nodesOfType(fullType, extra, 50);
    const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

    it("a structure's supercell and tolerance are in the address and come back on reload", async () => {
      const [si] = (await first('data.core.structure.StructureData.|')).filter(
        (n) => n.label === 'Si diamond',
      );
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/nodes/${si!.uuid}`);
        const number = page.getByTestId('space-group-number');
        await expect.poll(() => number.textContent(), { timeout: 20_000 }).toBe('227');
        await page.getByLabel('Tolerance').selectOption('0.01');
        await expect.poll(() => param(page, 'symprec')).toBe('0.01');
        const supercell = page.getByRole('group', { name: 'Supercell' });
        await supercell.getByLabel('a').selectOption('2');
        await supercell.getByLabel('b').selectOption('2');
        await expect.poll(() => param(page, 'supercell')).toBe('2x2x1');
        await page.reload();
        await expect.poll(() => number.textContent(), { timeout: 20_000 }).toBe('227');
        expect(await page.getByLabel('Tolerance').inputValue()).toBe('0.01');
        expect(await supercell.getByLabel('a').inputValue()).toBe('2');
        expect(await supercell.getByLabel('b').inputValue()).toBe('2');
        expect(await supercell.getByLabel('c').inputValue()).toBe('1');
        // Numbers of the cell and sites tables are on one line each, however narrow the screen.
        const split = await page
          .locator('td.bt-num')
          .evaluateAll(
            (cells) =>
              cells.filter(
                (c) =>
                  c.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(c).lineHeight || '20'),
              ).length,
          );
        expect(split).toBe(0);
        expect(await seriousViolations(page)).toEqual([]);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it("a band plot's zoom and reference energy are in the address; its tick labels are readable on a phone", async () => {
      const [bands] = await first('data.core.array.bands.BandsData.|');
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/nodes/${bands!.uuid}`);
        const plot = page.locator('[data-testid="bands-plot"]');
        await plot.waitFor({ timeout: 20_000 });
        // Readable tick labels: 11 px or more on the screen of a phone.
        const heights = await plot
          .locator('g.bt-kpoint-label text, :scope > g > text[text-anchor="end"]')
          .evaluateAll((texts) =>
            texts.map((t) => {
              const svg = (t as SVGTextElement).ownerSVGElement!;
              const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              return parseFloat(getComputedStyle(t).fontSize) * scale;
            }),
          );
        expect(heights.length).toBeGreaterThan(0);
        expect(Math.min(...heights)).toBeGreaterThanOrEqual(11);

        const form = page.getByRole('form', { name: 'Energy axis' });
        await form.getByLabel(/^Reference energy/).fill('2.5');
        await form.getByRole('button', { name: 'Apply' }).click();
        await expect.poll(() => param(page, 'ref')).toBe('2.5');
        await page
          .getByRole('group', { name: /^Zoom of/ })
          .getByRole('button', { name: 'Zoom in' })
          .click();
        await expect.poll(() => param(page, 'zoom')).not.toBeNull();
        const domain = {
          x: await plot.getAttribute('data-x-domain'),
          y: await plot.getAttribute('data-y-domain'),
        };
        await page.reload();
        await plot.waitFor({ timeout: 20_000 });
        expect(await plot.getAttribute('data-x-domain')).toBe(domain.x);
        expect(await plot.getAttribute('data-y-domain')).toBe(domain.y);
        expect(await plot.textContent()).toContain('E − 2.5');
        expect(await form.getByLabel(/^Reference energy/).inputValue()).toBe('2.5');
        // Reset zoom leaves the reference; Reset takes both away.
        await page.getByRole('button', { name: 'Reset zoom' }).click();
        await expect.poll(() => param(page, 'zoom')).toBeNull();
        expect(param(page, 'ref')).toBe('2.5');
        await form.getByRole('button', { name: 'Reset', exact: true }).click();
        await expect.poll(() => param(page, 'ref')).toBeNull();
        expect(await seriousViolations(page)).toEqual([]);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it("the file previewed (a calculation's input, a node's repository) is in the address and comes back on reload", async () => {
      const [calc] = await first(
        'process.calculation.calcjob.CalcJobNode.|aiida.calculations:quantumespresso.pw',
      );
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/nodes/${calc!.uuid}`);
        const input = page.locator('[data-testid="input-files"]');
        const file = input.locator('button.file').first();
        await file.waitFor({ timeout: 20_000 });
        const name = (await file.textContent())!;
        await file.click();
        await expect.poll(() => param(page, 'input')).toBe(name);
        await page.reload();
        await expect
          .poll(() => input.locator('button.file[aria-pressed="true"]').textContent(), { timeout: 20_000 })
          .toBe(name);
        await input.locator(`section.preview[aria-label="Preview of ${name}"]`).waitFor();

        // The node's own repository files, in the folded Files part: the address opens it again.
        await page.goto(`${rich.served.base}/nodes/${calc!.uuid}#files`);
        const files = page.locator('#files');
        const repoFile = files.locator('button.file').first();
        await repoFile.waitFor({ timeout: 20_000 });
        const repoName = (await repoFile.textContent())!;
        await repoFile.click();
        await expect.poll(() => param(page, 'file')).toBe(repoName);
        expect(new URL(page.url()).hash).toBe('#files');
        await page.reload();
        await files
          .locator(`section.preview[aria-label="Preview of ${repoName}"]`)
          .waitFor({ timeout: 20_000 });
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it('a report badge stays one word on a phone', async () => {
      const calcs = await first('process.%|%');
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        let checked = 0;
        for (const calc of calcs) {
          const { data } = await rich.served.api<{ logs: unknown[] }>(`/processes/${calc.uuid}/report/`);
          if (data.logs.length === 0) continue;
          await page.goto(`${rich.served.base}/nodes/${calc.uuid}`);
          const badge = page.locator('[data-testid="report"] .bt-log-level').first();
          await badge.waitFor({ timeout: 20_000 });
          const lines = await badge.evaluate((b) => b.getClientRects().length);
          const { height } = (await badge.boundingBox())!;
          expect(lines).toBe(1);
          expect(height).toBeLessThan(
            2 * parseFloat(await badge.evaluate((b) => getComputedStyle(b).fontSize)) + 8,
          );
          checked++;
          break;
        }
        expect(checked).toBe(1);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });

    it("a CIF's page finds its space group and labels the one the file declares", async () => {
      const cifs = await first(
        'data.core.cif.CifData.|',
        '&attributes=true&attributes_filter=spacegroup_numbers',
      );
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        for (const cif of cifs.slice(0, 3)) {
          await page.goto(`${rich.served.base}/nodes/${cif.uuid}`);
          const number = page.getByTestId('space-group-number');
          await expect.poll(() => number.textContent(), { timeout: 20_000 }).toMatch(/^\d+$/);
          const declared = page.getByTestId('space-group-declared');
          expect(await declared.locator('xpath=preceding-sibling::dt[1]').textContent()).toBe(
            'Declared in the file',
          );
          const numbers = (cif as ApiNode & { attributes?: { spacegroup_numbers?: number[] } }).attributes
            ?.spacegroup_numbers;
          if (numbers?.length) expect(await declared.textContent()).toContain(`No. ${numbers.join(', ')}`);
          // The generator writes each CIF with the sites and space group of a known crystal: found is declared.
          if (source === 'generated') expect(numbers).toEqual([Number(await number.textContent())]);
        }
        expect(await seriousViolations(page)).toEqual([]);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  },
);
