/**
 * `/docs` in a real browser: the page renders every operation of the document from Quarry's own files, asks no
 * other host for anything, and an operation's "Send" reaches the API through the document's servers entry. Needs
 * Chromium (`$QUARRY_CHROMIUM`, else /usr/bin/chromium); skipped with a note without it.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { listeningOn, smallArchive } from './helpers.js';

const executable = [process.env.QUARRY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path) => path !== undefined && existsSync(path),
);
if (executable === undefined)
  console.log('docs page browser test skipped: no Chromium (set QUARRY_CHROMIUM)');

let server: Awaited<ReturnType<typeof listeningOn>> | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (executable === undefined) return;
  server = await listeningOn(await smallArchive(200));
  browser = await launchChromium({ executablePath: executable, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it.skipIf(executable === undefined)(
  'renders every operation from local files and tries one out',
  async () => {
    const base = `http://127.0.0.1:${server?.port}`;
    const page = await (browser as Browser).newPage();
    const requested: string[] = [];
    const failures: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => failures.push(String(error)));
    await page.goto(`${base}/docs`);

    const document = (await (await fetch(`${base}/api/v4/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.keys(item).filter((key) => key !== 'parameters'),
    );
    await page.locator('.operation').first().waitFor();
    expect(await page.locator('.operation').count()).toBe(operations.length);
    expect(failures).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);

    const op = page.locator('#op-get_server');
    await op.locator('summary').click();
    await op.getByRole('button', { name: 'Send' }).click();
    const status = op.locator('.status[data-status]');
    await status.waitFor();
    expect(await status.getAttribute('data-status')).toBe('200');
    expect(await op.locator('.answer-body').innerText()).toContain('"API_major_version"');
    expect(requested).toContain(`${base}/api/v4/server/`);

    // A path parameter and a query parameter, filled in as a user would.
    const node = page.locator('#op-get_nodes_id');
    await node.locator('summary').click();
    const first = (await (await fetch(`${base}/api/v4/nodes/?limit=1`)).json()) as {
      data: { nodes: { uuid: string }[] };
    };
    await node.locator('input[name="id"]').fill(first.data.nodes[0]!.uuid);
    await node.getByRole('button', { name: 'Send' }).click();
    await node.locator('.status[data-status]').waitFor();
    expect(await node.locator('.status').getAttribute('data-status')).toBe('200');
    expect(await node.locator('.answer-body').innerText()).toContain(first.data.nodes[0]!.uuid);
  },
  120_000,
);

it.skipIf(executable === undefined)(
  "follows the system's dark colour scheme and links back to the explorer",
  async () => {
    const base = `http://127.0.0.1:${server?.port}`;
    for (const scheme of ['dark', 'light'] as const) {
      const context = await (browser as Browser).newContext({ colorScheme: scheme });
      try {
        const page = await context.newPage();
        await page.goto(`${base}/docs`);
        await page.locator('.operation').first().waitFor();
        const background = await page.evaluate(
          () => getComputedStyle(document.documentElement).backgroundColor,
        );
        const [r, g, b] = background.match(/\d+/g)!.map(Number);
        // The dark page is near black; the light page is white.
        if (scheme === 'dark') expect(r! + g! + b!, background).toBeLessThan(200);
        else expect(background === 'rgba(0, 0, 0, 0)' || r! + g! + b! > 600, background).toBe(true);
        await page.getByRole('link', { name: 'Back to the explorer' }).click();
        await page.waitForURL(`${base}/`);
        await page.locator('#search-box').waitFor();
      } finally {
        await context.close();
      }
    }
  },
  120_000,
);
