/**
 * The browser the tests start leaves nothing in the suite's temporary folder, on a busy machine too: Chromium's
 * `.org.chromium.Chromium.*` files land in a folder of the browser's own, and a browser that does not answer
 * when asked to close (here: stopped, as a starved process is) is killed within the wait, not left running.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserTmpOf, launchChromium, processesWithTmp } from '../support/chromium.js';
import { browserMissing, launchBrowser } from './support.js';

const missing = browserMissing();
const chromiumLeftovers = (dir: string) =>
  readdirSync(dir).filter((name) => name.startsWith('.org.chromium.'));

describe.skipIf(missing !== undefined)('a browser of the tests', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it("keeps Chromium's temporary files in a folder of its own", async () => {
    browser = await launchBrowser();
    const own = browserTmpOf(browser)!;
    const page = await browser.newPage();
    await page.setContent('<p>with --disable-dev-shm-usage, shared memory files are made in TMPDIR</p>');
    // Every process of the browser (its renderers too) has that folder for TMPDIR: whatever they leave lands there.
    const pids = processesWithTmp(own);
    expect(pids.length).toBeGreaterThan(1);
    // Its profile is a folder beside that one, made by the test too, not one Playwright makes in the suite's.
    const commandLines = pids.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
    expect(commandLines.some((args) => args.includes(`--user-data-dir=${join(dirname(own), 'p')}`))).toBe(
      true,
    );
    expect(chromiumLeftovers(tmpdir())).toEqual([]);
    await browser.close();
    expect(processesWithTmp(own)).toEqual([]);
  });

  it('kills a browser that does not close within the wait', async () => {
    browser = await launchChromium({ args: ['--no-sandbox', '--disable-dev-shm-usage'], closeWaitMs: 1_000 });
    const own = browserTmpOf(browser)!;
    await (await browser.newPage()).setContent('<p>busy</p>');
    const pids = processesWithTmp(own);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    const started = Date.now();
    await browser.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    // The killed processes are gone (reaped, or zombies whose environment reads empty).
    await expect.poll(() => processesWithTmp(own), { timeout: 10_000 }).toEqual([]);
    expect(existsSync(own)).toBe(true); // removed with the file's temporary folders, after every process is gone
    expect(chromiumLeftovers(tmpdir())).toEqual([]);
  });
});
