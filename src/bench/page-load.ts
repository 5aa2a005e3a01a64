/**
 * The explorer's home page in a browser: how long from opening it until its figures show (the node count, the
 * type tree, the chart), measured with Debian's Chromium through playwright-core (development dependencies,
 * loaded only here). Each run opens the page in a fresh browser context: no cached assets, as a first visit.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { median } from './median.js';

const CHROMIUM = '/usr/bin/chromium';

export interface PageLoad {
  /** Milliseconds from navigation to the node count shown, one per run. */
  figuresMs: number[];
  /** Milliseconds until nothing on the page is loading any more. */
  settledMs: number[];
  /** The median of `figuresMs`. */
  medianFiguresMs: number;
  medianSettledMs: number;
}

/** Debian's Chromium, or undefined (with the reason on stderr) when there is none to measure with. */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(
      `the explorer is not measured: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`,
    );
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Undefined (with the reason on stderr) when there is no browser to measure with. */
export async function measureHomePage(base: string, runs = 5): Promise<PageLoad | undefined> {
  const browser = await launchChromium();
  if (!browser) return undefined;
  const figuresMs: number[] = [];
  const settledMs: number[] = [];
  try {
    // One unmeasured visit: the server's first statistics of a large archive are computed once and kept.
    for (let run = -1; run < runs; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${base}/`, { waitUntil: 'commit' });
      await page.waitForFunction(
        () => /\d/.test(document.querySelector('[data-figure="total"]')?.textContent ?? ''),
        null,
        { timeout: 60_000 },
      );
      const figures = Date.now() - started;
      await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, null, {
        timeout: 60_000,
      });
      const settled = Date.now() - started;
      const failed = await page.locator('[role="alert"]').count();
      if (failed > 0) throw new Error(`the home page at ${base}/ shows ${failed} error message(s)`);
      if (run >= 0) {
        figuresMs.push(figures);
        settledMs.push(settled);
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return {
    figuresMs,
    settledMs,
    medianFiguresMs: median(figuresMs) ?? 0,
    medianSettledMs: median(settledMs) ?? 0,
  };
}
