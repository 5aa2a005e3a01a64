/**
 * Every public conformance archive, a generated (demo) archive and the rich data as a PostgreSQL profile, served
 * together: in Chromium, the home page, the node list, the groups, a group, computers and users of each source, and
 * a node of every type, show without a failed request, a console error or an error message.
 */
import { basename } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBin, startCluster, type Cluster } from '../../src/bench/postgres-cluster.js';
import { smallArchive, tempDir } from '../helpers.js';
import { unpackContainer } from '../support/profile-fixtures.js';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type WatchedPage } from './support.js';
import { richFile, SHARED_ARCHIVES, sharedArchive } from '../conformance/corpus.js';

const missing = browserMissing();

/** The rich archive, and aiida-core's test archives where ../shared has them. */
const archives = [
  richFile('rich.aiida'),
  ...SHARED_ARCHIVES.map((name) => sharedArchive(`${name}.aiida`)).filter((f) => f !== undefined),
];
const withPostgres = postgresBin() !== undefined || process.env.QUARRY_REQUIRE_POSTGRES !== undefined;
/**
 * The sources' names (`?profile=`): the archives' file names, the generated one's (test/helpers.ts), the
 * PostgreSQL database's.
 */
const sources = [
  ...archives.map((file) => basename(file, '.aiida')),
  'small-300-5',
  ...(withPostgres ? ['richpg'] : []),
];
/**
 * A node of every type is opened on each source; the rich data once (as PostgreSQL when it is there, else as
 * the archive): both answer the same (the conformance replay), and its 25 types take the longest.
 */
const everyType = (profile: string) => profile !== (withPostgres ? 'rich' : 'richpg');

/** A profile as the v4 query language reads it: quoted, since names hold dots. */
const q = (profile: string) => encodeURIComponent(JSON.stringify(profile));

describe.skipIf(missing !== undefined)('the explorer on every source', () => {
  let served: Awaited<ReturnType<typeof serveExplorer>>;
  let browser: Browser;
  let watched: WatchedPage;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    const demo = await smallArchive(300, 5);
    expect(basename(demo, '.aiida')).toBe('small-300-5');
    const extra: string[] = [];
    if (withPostgres) {
      cluster = await startCluster();
      cluster.restore('richpg', richFile('rich-psql.sql.gz'));
      const repository = await unpackContainer(richFile('rich-container-loose.tar.gz'), tempDir());
      extra.push(cluster.url('richpg'), '--repository', repository);
    }
    [served, browser] = await Promise.all([serveExplorer([...archives, demo, ...extra]), launchBrowser()]);
    watched = await watchedPage(browser);
    // Several sources and no index of them (`GET /sources/`) on this server: the home page shows none.
    watched.expect(/\/sources\/\?/, 404);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    served?.stop();
    cluster?.destroy();
  });

  /** Open a view and wait until nothing in it is loading any more; the error messages it shows. */
  async function settle(path: string, profile: string): Promise<string[]> {
    const { page } = watched;
    const url = `${path}${path.includes('?') ? '&' : '?'}profile=${encodeURIComponent(profile)}`;
    if (!page.url().startsWith(served.base)) await page.goto(`${served.base}${url}`);
    else {
      // As the app's own links go (history), without loading the page again: faster, and the way people move.
      await page.evaluate(async (to) => {
        window.history.pushState(null, '', to);
        window.dispatchEvent(new PopStateEvent('popstate'));
        // The new view is drawn (each view starts loading) before anything is judged.
        for (let frame = 0; frame < 2; frame++)
          await new Promise((resolve) => requestAnimationFrame(resolve));
      }, url);
    }
    await page.locator('main > *').first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, null, {
      timeout: 20_000,
    });
    // The provenance graph is the by-type views' own (tested with them).
    return page.locator('main [role="alert"]:not(#graph [role="alert"])').allTextContents();
  }

  it.each(sources)(
    'shows every view of %s without a failure',
    async (profile) => {
      const { page } = watched;
      {
        const stats = await served.api<{ total: number; types: Record<string, number> }>(
          `/nodes/statistics/?profile=${q(profile)}`,
        );
        expect(await settle('/', profile), profile).toEqual([]);
        expect(await page.locator('[data-figure="total"]').textContent()).toBe(
          stats.data.total.toLocaleString('en-US'),
        );
        expect(await settle('/nodes', profile), profile).toEqual([]);
        for (const nodeType of everyType(profile) ? Object.keys(stats.data.types) : []) {
          const one = await served.api<{ nodes: { uuid: string }[] }>(
            `/nodes/?node_type=${encodeURIComponent(`"${nodeType}"`)}&limit=1&profile=${q(profile)}`,
          );
          const uuid = one.data.nodes[0]!.uuid;
          expect(await settle(`/nodes/${uuid}`, profile), `${profile} ${nodeType} ${uuid}`).toEqual([]);
          expect(await page.locator('[data-field="uuid"]').textContent()).toBe(uuid);
        }
        expect(await settle('/groups', profile), profile).toEqual([]);
        const groups = await served.api<{ groups: { uuid: string }[] }>(
          `/groups/?limit=1&profile=${q(profile)}`,
        );
        if (groups.data.groups[0]) {
          expect(await settle(`/groups/${groups.data.groups[0].uuid}`, profile), profile).toEqual([]);
        }
        expect(await settle('/computers', profile), profile).toEqual([]);
        expect(await settle('/users', profile), profile).toEqual([]);
        expect(watched.problems, profile).toEqual([]);
      }
    },
    120_000,
  );
});
