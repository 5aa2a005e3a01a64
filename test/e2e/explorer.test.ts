/**
 * The explorer in headless Chromium against `quarry serve` on the rich conformance archive: a person's session
 * from the home page to a node, a download, a group and a UUID that names nothing. What the page shows is
 * compared with the API's own answers; no request may fail and the page may log no error.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserMissing,
  labelledFirstPage,
  launchBrowser,
  screenshot,
  serveExplorer,
  watchedPage,
  type ApiNode,
  type WatchedPage,
} from './support.js';
import { richFile } from '../conformance/corpus.js';
import { smallArchive } from '../helpers.js';

const missing = browserMissing();

describe.skipIf(missing !== undefined)('the explorer in a browser (rich archive)', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    [served, browser] = await Promise.all([serveExplorer([richFile('rich.aiida')]), launchBrowser()]);
    watched = await watchedPage(browser);
  });
  afterAll(async () => {
    await browser?.close();
    served?.stop();
  });

  const uuidsShown = async () =>
    watched.page
      .locator('table.nodes tbody tr td.mono a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('title')));

  it('home: the figures are the statistics of the API, the type tree its counts', async () => {
    const { page } = watched;
    const stats = await served.api<{ total: number; types: Record<string, number> }>('/nodes/statistics/');
    const server = await served.api<{ AiiDA_version: string }>('/server/');
    const started = Date.now();
    await page.goto(`${served.base}/`);
    const total = page.locator('[data-figure="total"]');
    await expect.poll(() => total.textContent()).toBe(stats.data.total.toLocaleString('en-US'));
    const shownWithin = Date.now() - started;
    expect(shownWithin).toBeLessThan(5000);
    expect(await page.locator('[data-figure="aiida-version"]').textContent()).toBe(server.data.AiiDA_version);
    const count = page
      .getByRole('link', { name: 'StructureData', exact: true })
      .locator('xpath=following-sibling::span[@class="count"][1]');
    await expect
      .poll(() => count.textContent())
      .toBe(String(stats.data.types['data.core.structure.StructureData.']));
    // The chart has as many nodes as the statistics.
    const bars = await page.locator('.chart rect.bar title').allTextContents();
    const charted = bars.reduce((sum, text) => sum + Number(text.split(': ')[1]!.replace(/,/g, '')), 0);
    expect(charted).toBe(stats.data.total);
    await screenshot(page, 'home');
    expect(watched.problems).toEqual([]);
  });

  it('the search box opens a node by pk or UUID start, and lists nodes by label', async () => {
    const { page } = watched;
    const some = (await served.api<{ nodes: ApiNode[] }>('/nodes/?orderby=id&limit=1&offset=100')).data
      .nodes[0]!;
    const search = async (text: string) => {
      await page.goto(`${served.base}/`);
      await page.getByLabel('Find a node').fill(text);
      await page.getByLabel('Find a node').press('Enter');
    };
    await search(String(some.id));
    await page.waitForURL(new RegExp(`/nodes/${some.uuid}$`));
    await search(some.uuid.slice(0, 13));
    await page.waitForURL(new RegExp(`/nodes/${some.uuid}$`));
    await search('diamond');
    await page.waitForURL(/\/nodes\?label=diamond$/);
    const byLabel = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?label=ilike=${encodeURIComponent('"%diamond%"')}&orderby=-ctime,id&limit=20`,
    );
    await expect.poll(uuidsShown).toEqual(byLabel.data.nodes.map((n) => n.uuid));
    expect(watched.problems).toEqual([]);
  });

  it('the header and footer link the API documentation', async () => {
    const { page } = watched;
    await page.goto(`${served.base}/`);
    const docs = page.locator('header').getByRole('link', { name: 'API docs' });
    expect(await docs.getAttribute('href')).toBe('/docs');
    expect(
      await page.locator('footer').getByRole('link', { name: 'API documentation' }).getAttribute('href'),
    ).toBe('/docs');
    expect((await fetch(`${served.base}/docs`)).status).toBe(200);
    expect(watched.problems).toEqual([]);
  });

  it('the keyboard reaches everything: a skip link first, a visible focus', async () => {
    const { page } = watched;
    await page.goto(`${served.base}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/nodes$/);
    expect(watched.problems).toEqual([]);
  });

  it('type tree → node list: the rows are the API page, in order; paging and a filter agree with it too', async () => {
    const { page } = watched;
    await page.goto(`${served.base}/`);
    await page.getByRole('link', { name: 'StructureData', exact: true }).click();
    await page.waitForURL(/\/nodes\?type=/);
    const full = new URL(page.url()).searchParams.get('type')!;
    const filter = `full_type=${encodeURIComponent(`"${full}"`)}`;
    // No order asked for: the labelled nodes first, each part newest first.
    const first = await labelledFirstPage(served, filter, 1);
    await expect.poll(uuidsShown).toEqual(first.nodes.map((n) => n.uuid));
    expect(await page.locator('[data-figure="list-total"]').textContent()).toBe(`${first.total} nodes`);
    await screenshot(page, 'node-list');

    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    const second = await labelledFirstPage(served, filter, 2);
    await expect.poll(uuidsShown).toEqual(second.nodes.map((n) => n.uuid));

    // Sorting by label, ascending.
    await page.getByRole('button', { name: /^Label/ }).click();
    await page.waitForURL(/sort=label/);
    const sorted = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/page/1/?perpage=20&orderby=label,id&${filter}`,
    );
    await expect.poll(uuidsShown).toEqual(sorted.data.nodes.map((n) => n.uuid));

    // A creation time range, in UTC days.
    await page.getByLabel('Created (UTC) from').fill('2019-03-01');
    await page.getByLabel('to', { exact: true }).fill('2019-12-31');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/from=2019-03-01&to=2019-12-31/);
    const in2019 = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/page/1/?perpage=20&orderby=label,id&${filter}&ctime>=2019-03-01T00:00:00&ctime<2020-01-01T00:00:00`,
    );
    await expect.poll(uuidsShown).toEqual(in2019.data.nodes.map((n) => n.uuid));
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL(/\/nodes\?sort=label$/);
    await page.goto(`${served.base}/nodes?type=${encodeURIComponent(full)}&sort=label`);

    await page.getByLabel('Label contains').fill('Si');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/label=Si/);
    const bySi = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/page/1/?perpage=20&orderby=label,id&${filter}&label=ilike=${encodeURIComponent('"%Si%"')}`,
    );
    expect(bySi.total).toBeGreaterThan(0);
    await expect.poll(uuidsShown).toEqual(bySi.data.nodes.map((n) => n.uuid));
    expect(watched.problems).toEqual([]);
  });

  it('a row opens its node: label, uuid, pk, contents and links as the API has them', async () => {
    const { page } = watched;
    const target = (await uuidsShown())[0]!;
    await page.locator(`table.nodes a[title="${target}"]`).click();
    await page.waitForURL(new RegExp(`/nodes/${target}`));
    const node = (await served.api<{ nodes: ApiNode[] }>(`/nodes/${target}/`)).data.nodes[0]!;
    await expect.poll(() => page.locator('[data-field="uuid"]').textContent()).toBe(node.uuid);
    expect(await page.locator('h1').textContent()).toBe(node.label || '(no label)');
    expect(await page.locator('[data-field="pk"]').textContent()).toBe(String(node.id));
    const outgoing = await served.api<{ outgoing: ApiNode[] }>(
      `/nodes/${target}/links/outgoing/page/1/?perpage=20`,
    );
    // The parts after the summary, graph and view are folded, and asked for when opened.
    for (const part of ['outgoing', 'attributes']) await page.locator(`#${part} > details > summary`).click();
    const rows = page.locator('#outgoing table tbody tr');
    if (outgoing.data.outgoing.length > 0)
      await expect.poll(() => rows.count()).toBe(outgoing.data.outgoing.length);
    const attributes = await served.api<{ attributes: Record<string, unknown> }>(
      `/nodes/${target}/contents/attributes/`,
    );
    for (const key of Object.keys(attributes.data.attributes).slice(0, 5)) {
      await expect
        .poll(() => page.locator('#attributes .json-key', { hasText: `${key}:` }).count())
        .toBeGreaterThan(0);
    }
    await screenshot(page, 'node-structure', { fullPage: true });
    expect(watched.problems).toEqual([]);
  });

  it("a download link gives the API's export", async () => {
    const { page } = watched;
    await page.locator('#download > details > summary').click();
    const link = page.locator('#download a', { hasText: 'cif' });
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    const got = readFileSync(path!, 'utf8');
    const href = (await link.getAttribute('href'))!;
    const expected = await (await fetch(href)).text();
    expect(got).toBe(expected);
    expect(got).toContain('_cell_length_a');
    expect(watched.problems).toEqual([]);
  });

  it("a calculation's files: a folder opens, a file previews as the repository holds it", async () => {
    const { page } = watched;
    const calcs = await served.api<{ nodes: ApiNode[] }>(
      `/nodes/?full_type=${encodeURIComponent('"process.calculation.calcjob.CalcJobNode.|%"')}&orderby=id&limit=1`,
    );
    const calc = calcs.data.nodes[0]!;
    const list = await served.api<{ repo_list: { name: string; type: string }[] }>(
      `/nodes/${calc.uuid}/repo/list/`,
    );
    const file = list.data.repo_list.find((e) => e.type === 'FILE')!;
    await page.goto(`${served.base}/nodes/${calc.uuid}`);
    await page.locator('#files > details > summary').click();
    await page.locator('#files button.file', { hasText: file.name }).click();
    const expected = await (
      await fetch(
        `${served.base}/api/v4/nodes/${calc.uuid}/repo/contents/?filename=${encodeURIComponent(`"${file.name}"`)}`,
      )
    ).text();
    await expect.poll(() => page.locator('#files pre.file-text').textContent()).toBe(expected);
    const folder = list.data.repo_list.find((e) => e.type === 'DIRECTORY');
    if (folder) {
      await page.locator('#files button.folder', { hasText: folder.name }).click();
      const inside = await served.api<{ repo_list: { name: string }[] }>(
        `/nodes/${calc.uuid}/repo/list/?filename=${encodeURIComponent(`"${folder.name}"`)}`,
      );
      for (const entry of inside.data.repo_list) {
        await page.locator('#files li li', { hasText: entry.name }).first().waitFor();
      }
    }
    expect(watched.problems).toEqual([]);
  });

  it("a group's page lists its nodes", async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL(/\/groups$/);
    const groups = await served.api<{ groups: { uuid: string; label: string }[] }>('/groups/?orderby=label');
    const group = groups.data.groups.find((g) => g.label === 'structures/all')!;
    await page.getByRole('link', { name: group.label, exact: true }).click();
    await page.waitForURL(new RegExp(`/groups/${group.uuid}`));
    const response = await fetch(`${served.base}/api/v4/querybuilder/`, {
      method: 'POST',
      body: JSON.stringify({
        path: [
          { entity_type: 'group.core', orm_base: 'group', tag: 'g' },
          {
            entity_type: 'node.Node.',
            orm_base: 'node',
            tag: 'n',
            joining_keyword: 'with_group',
            joining_value: 'g',
          },
        ],
        filters: { g: { uuid: { '==': group.uuid } } },
        project: { n: ['uuid'] },
        order_by: [{ n: [{ id: { order: 'asc' } }] }],
        limit: 20,
      }),
    });
    const members = ((await response.json()) as { data: { n: { uuid: string }[] } }).data.n;
    expect(members.length).toBeGreaterThan(0);
    await expect.poll(uuidsShown).toEqual(members.map((m) => m.uuid));
    await screenshot(page, 'group');
    expect(watched.problems).toEqual([]);
  });

  it('an unknown uuid shows "Not found" with a search box, and nothing else fails', async () => {
    const { page } = watched;
    const unknown = '00000000-0000-4000-8000-000000000000';
    watched.expect(new RegExp(`/api/v4/nodes/${unknown}/`), 404);
    await page.goto(`${served.base}/nodes/${unknown}`);
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Not found');
    expect(await page.getByRole('status').textContent()).toBe(
      `No node with the UUID ${unknown} is in this data.`,
    );
    // A way on: the search box finds a node from here.
    const some = (await served.api<{ nodes: ApiNode[] }>('/nodes/?orderby=id&limit=1')).data.nodes[0]!;
    await page.getByLabel('Find a node').fill(String(some.id));
    await page.getByLabel('Find a node').press('Enter');
    await page.waitForURL(new RegExp(`/nodes/${some.uuid}$`));
    expect(watched.problems).toEqual([]);
  });
});

describe.skipIf(missing !== undefined)('the explorer in a browser (several sources, another server)', () => {
  let several: Awaited<ReturnType<typeof serveExplorer>>;
  let rich: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let watched: WatchedPage;

  beforeAll(async () => {
    [several, rich, browser] = await Promise.all([
      serveExplorer([await smallArchive(300, 5), richFile('rich.aiida')]),
      serveExplorer([richFile('rich.aiida')]),
      launchBrowser(),
    ]);
    watched = await watchedPage(browser, { dark: true });
    // A server of several sources may have no index of them (`GET /sources/`); the home page then shows none.
    watched.expect(/\/sources\/\?/, 404);
  });
  afterAll(async () => {
    await browser?.close();
    several?.stop();
    rich?.stop();
  });

  const totalShown = (page: WatchedPage['page']) => page.locator('[data-figure="total"]').textContent();
  const totalOf = async (served: typeof several, query = '') =>
    (await served.api<{ total: number }>(`/nodes/statistics/${query}`)).data.total.toLocaleString('en-US');

  it('switches source, and every link keeps it', async () => {
    const { page } = watched;
    await page.goto(`${several.base}/`);
    await expect.poll(() => totalShown(page)).toBe(await totalOf(several));
    const switcher = page.locator('header .switcher select');
    expect(await switcher.locator('option').allTextContents()).toEqual(['small-300-5', 'rich']);
    await switcher.selectOption('rich');
    await page.waitForURL(/\?profile=rich$/);
    await expect.poll(() => totalShown(page)).toBe(await totalOf(several, '?profile=rich'));
    await expect.poll(() => page.locator('h1').textContent()).toBe('rich');
    for (const href of await page
      .locator('main a[href^="/"], header a[href^="/"]')
      // The list of the server's sources links each source's own path, not a view of this one.
      .evaluateAll((links) =>
        links.filter((a) => !a.closest('table.sources')).map((a) => a.getAttribute('href')!),
      )
      // The API documentation is the server's page, not a view of a source.
      .then((hrefs) => hrefs.filter((h) => h !== '/docs'))) {
      expect(new URL(href, several.base).searchParams.get('profile'), href).toBe('rich');
    }
    await page.getByRole('link', { name: 'Nodes', exact: true }).click();
    await page.waitForURL(/\/nodes\?profile=rich$/);
    const first = { data: await labelledFirstPage(several, 'profile=rich', 1) };
    await expect
      .poll(() =>
        page
          .locator('table.nodes tbody tr td.mono a')
          .evaluateAll((links) => links.map((a) => a.getAttribute('title'))),
      )
      .toEqual(first.data.nodes.map((n) => n.uuid));
    await screenshot(page, 'node-list-dark');
    expect(watched.problems).toEqual([]);
  });

  it('reads another v4 server named by ?api=', async () => {
    const { page } = watched;
    const other = `${several.base}/api/v4`;
    await page.goto(`${rich.base}/?api=${encodeURIComponent(other)}`);
    await expect.poll(() => totalShown(page)).toBe(await totalOf(several));
    expect(await page.locator('footer').textContent()).toContain(other);
    // The source names are the serving server's own: no switcher for another server.
    expect(await page.locator('header .switcher select').count()).toBe(0);
    const link = page.getByRole('link', { name: 'Nodes', exact: true });
    expect(new URL((await link.getAttribute('href'))!, rich.base).searchParams.get('api')).toBe(other);
    expect(watched.problems).toEqual([]);
  });

  it('says so when the server is gone, instead of a blank page or an endless spinner', async () => {
    const { page } = watched;
    await page.goto(`${rich.base}/nodes`);
    await page.locator('table.nodes').waitFor();
    const exited = new Promise((resolve) => rich.server.once('exit', resolve));
    rich.server.kill('SIGKILL');
    await exited;
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/cannot be reached/);
    // The only problems are the connections to the stopped server: refused, reset where the browser had one
    // open to it already, or closed unanswered by its serving process, which outlives its killed supervisor
    // for a moment (on a busy machine, long enough to take the connection).
    expect(watched.problems.length).toBeGreaterThan(0);
    for (const problem of watched.problems)
      expect(problem).toMatch(/ERR_CONNECTION_(REFUSED|RESET)|ERR_EMPTY_RESPONSE/);
  });
});
