/**
 * The explorer's downloads in AiiDA's own form, in Chromium at a desktop and a phone width on the rich archive:
 * "Download with provenance (.aiida)" on a node's and a group's page says what the archive will hold before the
 * download starts, and the command that imports it; the download is the server's export; "Download the whole
 * dataset" on the home page is the archive itself.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, serveExplorer, watchedPage } from './support.js';
import { richFile } from '../conformance/corpus.js';

const missing = browserMissing();
const CALCJOB = '872e983d-1456-47d7-b7f2-4f3f3a976653';
const FAVORITES = '7968402c-153d-4d6e-8023-2fe9d9e4b8d4';
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

describe.skipIf(missing !== undefined)('exports in the explorer (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  /** What the server's dry run says of an export. */
  const dryRun = async (query: string) =>
    (await (await fetch(`${served.base}/export/?${query}&dry_run=1`)).json()) as { nodes: { total: number } };

  for (const viewport of WIDTHS) {
    for (const [what, path, query] of [
      ['a node', `/nodes/${CALCJOB}`, `nodes=${CALCJOB}`],
      ['a group', `/groups/${FAVORITES}`, `groups=${FAVORITES}`],
    ] as const) {
      it(`${what}'s page at ${viewport.width} px: what it will hold, then the archive`, async () => {
        const expected = await dryRun(query);
        const watched = await watchedPage(browser, { viewport });
        const { page } = watched;
        try {
          await page.goto(`${served.base}${path}`);
          await page.getByRole('button', { name: 'Download with provenance (.aiida)' }).click();
          const summary = page.locator('[data-field="export-summary"]');
          await expect.poll(() => summary.textContent()).toContain(`will hold ${expected.nodes.total} nodes`);
          expect(await summary.textContent()).toContain('verdi archive import');
          const link = summary.getByRole('link', { name: /^Download .*\.aiida$/ });
          const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
          const saved = await download.path();
          const bytes = readFileSync(saved);
          expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
          expect(download.suggestedFilename()).toMatch(/\.aiida$/);
          expect(watched.problems).toEqual([]);
        } finally {
          await page.context().close();
        }
      });
    }

    it(`the home page at ${viewport.width} px offers the whole dataset`, async () => {
      const watched = await watchedPage(browser, { viewport });
      const { page } = watched;
      try {
        await page.goto(`${served.base}/`);
        const link = page.getByRole('link', { name: 'Download the whole dataset (.aiida)' });
        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        expect(readFileSync(await download.path()).equals(readFileSync(richFile('rich.aiida')))).toBe(true);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }
});
