/**
 * `GET /search/` on a portal of the conformance archives, legacy archives, generated ones and a damaged one:
 * its answers agree with what each source's own v4 API says (structures with an element, processes that
 * failed, a node by UUID prefix, labels), its totals and facets are exact, bad input is a 400 naming it, the
 * damaged archive is one warning, and sources added to or removed from the folder come and go.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SearchIndexes } from '../src/search/indexes.js';
import { buildApp } from '../src/server/app.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { scanFolders } from '../src/sources/discover.js';
import { sourceOpener } from '../src/sources/open.js';
import { SharedQueryProcesses } from '../src/storage/shared-query-processes.js';
import { richFile, sharedArchive, SHARED_ARCHIVES } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';
import { legacyDir, legacyPresent, legacySkipLine } from './support/legacy-corpus.js';

const STRUCTURE = 'data.core.structure.StructureData.';
const shared = new SharedQueryProcesses({ size: 2 });
const folder = tempDir('quarry-search-portal-');
let catalog: SourceCatalog;
let app: FastifyInstance;
const names: string[] = [];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function search(query: string): Promise<Json> {
  const answer = await app.inject({ url: `/search/?${query}` });
  expect(answer.statusCode, answer.body).toBe(200);
  // The only source ever left out is the damaged one.
  const json = answer.json();
  expect(json.warnings.filter((w: string) => !/"broken"|being indexed/.test(w))).toEqual([]);
  return json;
}

/** Every node of a v4 listing, paged through. */
async function v4All(name: string, query: string): Promise<Json[]> {
  const out: Json[] = [];
  for (let offset = 0; ; offset += 400) {
    const answer = await app.inject({
      url: `/${name}/api/v4/nodes/?${query}&limit=400&offset=${offset}&orderby=id`,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const nodes = answer.json().data.nodes as Json[];
    out.push(...nodes);
    if (nodes.length < 400) return out;
  }
}

/** Waits until every source is indexed (or left out), as a client searching again would. */
async function indexed(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const answer = await search('per_page=1');
    if (!answer.warnings.some((w: string) => w.includes('being indexed'))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the sources were not indexed within 30 s');
}

beforeAll(async () => {
  copyFileSync(richFile('rich.aiida'), join(folder, 'rich.aiida'));
  for (const name of SHARED_ARCHIVES) {
    const file = sharedArchive(`${name}.aiida`);
    if (file !== undefined) copyFileSync(file, join(folder, `${name}.aiida`));
  }
  if (legacyPresent()) {
    copyFileSync(join(legacyDir(), 'export_0.13_simple.aiida'), join(folder, 'legacy13.aiida'));
    copyFileSync(join(legacyDir(), 'export_0.4_simple.tar.gz'), join(folder, 'legacy04.tar.gz'));
  } else console.log(legacySkipLine());
  copyFileSync(await smallArchive(300, 3), join(folder, 'gen-a.aiida'));
  copyFileSync(await smallArchive(200, 5), join(folder, 'gen-b.aiida'));
  writeFileSync(join(folder, 'broken.aiida'), 'not a zip at all');
  catalog = new SourceCatalog(sourceOpener({ cacheDir: tempDir('quarry-cache-'), sharedProcesses: shared }));
  catalog.add(scanFolders([folder]));
  names.push(...catalog.names().filter((n) => n !== 'broken'));
  app = await buildApp({ catalog });
  await indexed();
}, 180_000);

afterAll(async () => {
  await app?.close();
  await catalog?.close();
  await shared.close();
});

describe('search over a portal', () => {
  it('finds exactly the structures with an element that each source holds, by the v4 API', async () => {
    for (const element of ['Si', 'O']) {
      const expected = new Set<string>();
      for (const name of names) {
        for (const node of await v4All(name, `node_type="${STRUCTURE}"&attributes=true`)) {
          const kinds = new Map<string, string[]>(
            (node.attributes.kinds ?? []).map((k: Json) => [k.name as string, k.symbols as string[]]),
          );
          const has = (node.attributes.sites ?? []).some((s: Json) =>
            kinds.get(s.kind_name)?.includes(element),
          );
          if (has) expected.add(`${name}/${node.uuid}`);
        }
      }
      const found = await search(`type=structure&elements=${element}&per_page=100`);
      expect(found.total).toBe(expected.size);
      expect(found.total).toBeGreaterThan(0);
      expect(found.total).toBeLessThanOrEqual(100);
      expect(new Set(found.results.map((r: Json) => `${r.source}/${r.uuid}`))).toEqual(expected);
      expect(found.facets.elements[element]).toBe(expected.size);
    }
  });

  it('finds the failed and the finished processes as their process state and exit status say', async () => {
    for (const name of names) {
      const processes = await v4All(name, 'node_type=like="process.%"&attributes=true');
      const state = (n: Json) => n.attributes.process_state;
      const failed = processes.filter((n) => state(n) === 'finished' && n.attributes.exit_status !== 0);
      const finished = processes.filter((n) => state(n) === 'finished' && n.attributes.exit_status === 0);
      const excepted = processes.filter((n) => state(n) === 'excepted');
      expect((await search(`source=${name}&state=failed`)).total, name).toBe(failed.length);
      expect((await search(`source=${name}&state=finished`)).total, name).toBe(finished.length);
      expect((await search(`source=${name}&state=excepted`)).total, name).toBe(excepted.length);
    }
    const rich = await search('source=rich&state=failed&per_page=100');
    expect(rich.total).toBe(54);
    const page = rich.results.map((r: Json) => r.ctime);
    expect(page).toEqual([...page].sort().reverse());
  });

  it('finds a node by a UUID prefix, with URLs that answer it in its source', async () => {
    const [node] = await v4All('gen-b', `node_type="${STRUCTURE}"`);
    const found = await search(`q=${node!.uuid.slice(0, 8)}`);
    const hit = found.results[0];
    expect(hit).toMatchObject({ source: 'gen-b', uuid: node!.uuid, pk: node!.id, node_type: STRUCTURE });
    expect(hit.url).toBe(`http://localhost:80/gen-b/api/v4/nodes/${node!.uuid}/`);
    expect(hit.explorer_url).toBe(`http://localhost:80/gen-b/nodes/${node!.uuid}`);
    const fetched = await app.inject({ url: new URL(hit.url).pathname });
    expect(fetched.json().data.nodes[0].uuid).toBe(node!.uuid);
    // The whole UUID, in upper case, too.
    expect((await search(`q=${node!.uuid.toUpperCase()}`)).results[0].uuid).toBe(node!.uuid);
  });

  it('finds formulas in any order and words of labels', async () => {
    for (const q of ['GaAs', 'AsGa']) {
      const found = await search(`q=${q}&type=structure`);
      expect(found.results.map((r: Json) => r.label)).toContain('GaAs zincblende');
      expect(found.results.every((r: Json) => r.formula === 'AsGa' || /gaas/i.test(r.label))).toBe(true);
    }
    const siO = await search('q=Si%20O&type=structure&per_page=100');
    expect(siO.total).toBe((await search('elements=Si,O&type=structure&per_page=100')).total);
    const label = await search('q=zincblende');
    expect(label.results[0].label).toMatch(/zincblende/i);
    const byLabel = await v4All('rich', 'label=like="%zincblende%"');
    expect(label.facets.source.rich).toBeGreaterThanOrEqual(byLabel.length);
  });

  it('counts totals and facets exactly', async () => {
    const all = await search('per_page=5');
    let nodes = 0;
    for (const name of names) {
      const count = await app.inject({ url: `/${name}/api/v4/nodes/?limit=1` });
      nodes += Number(count.headers['x-total-count']);
      expect(all.facets.source[name], name).toBe(Number(count.headers['x-total-count']));
    }
    expect(all.total).toBe(nodes);
    const sum = (facet: Record<string, number>) => Object.values(facet).reduce((a, b) => a + b, 0);
    expect(sum(all.facets.type)).toBe(nodes);
    expect(sum(all.facets.source)).toBe(nodes);
    const structures = await search('type=structure');
    expect(structures.total).toBe(all.facets.type[STRUCTURE]);
    // Pages neither overlap nor leave a result out.
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(...(await search(`type=structure&per_page=7&page=${page}`)).results);
    const whole = (await search('type=structure&per_page=21')).results;
    expect(pages.map((r) => `${r.source}/${r.uuid}`)).toEqual(
      whole.map((r: Json) => `${r.source}/${r.uuid}`),
    );
  });

  it('answers other pages of a search from its counts, reading only the sources with matches', async () => {
    const opened = vi.spyOn(SearchIndexes.prototype, 'open');
    try {
      // Searches asked nowhere else in this file: their first page is counted here.
      for (const q of [
        'q=zincblende&type=structure',
        'state=excepted&type=calcjob',
        'elements=Ga&nelements=2',
      ]) {
        opened.mockClear();
        const whole = await search(`${q}&per_page=6`);
        const firstReads = opened.mock.calls.length;
        const matching = Object.keys(whole.facets.source).length;
        expect(whole.total, q).toBeGreaterThan(0);
        opened.mockClear();
        const first = await search(`${q}&per_page=3`);
        const second = await search(`${q}&per_page=3&page=2`);
        expect(opened.mock.calls.length, q).toBe(2 * matching);
        for (const page of [first, second]) {
          expect(page.total, q).toBe(whole.total);
          expect(page.facets, q).toEqual(whole.facets);
        }
        expect([...first.results, ...second.results], q).toEqual(whole.results);
        if (q.startsWith('q=')) expect(firstReads, q).toBeGreaterThan(matching);
      }
    } finally {
      opened.mockRestore();
    }
  });

  it('gives every page the results a merge of every source gives, whatever the merge kept of each', async () => {
    const key = (r: Json) => `${r.source}/${r.uuid}`;
    // Without words, the order is newest first, then by source and pk: made here from each source's own answer.
    for (const q of ['type=structure', 'state=finished', 'page=1']) {
      const each: Json[] = [];
      for (const name of names) each.push(...(await search(`${q}&source=${name}&per_page=20`)).results);
      each.sort(
        (a, b) =>
          (b.ctime ?? '').localeCompare(a.ctime ?? '') ||
          (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) ||
          b.pk - a.pk,
      );
      const merged = (await search(`${q}&per_page=20`)).results;
      expect(merged.map(key), q).toEqual(each.slice(0, 20).map(key));
    }
    // With words: pages of 5 are the first 20 of 20 a page and of 100 a page.
    for (const q of ['q=relax', 'q=Si', 'q=zincblende', 'q=silicon%20bands']) {
      const pages: Json[] = [];
      for (let page = 1; page <= 4; page++)
        pages.push(...(await search(`${q}&per_page=5&page=${page}`)).results);
      const twenty = (await search(`${q}&per_page=20`)).results;
      const hundred = (await search(`${q}&per_page=100`)).results;
      expect(pages.map(key), q).toEqual(twenty.map(key));
      expect(twenty.map(key), q).toEqual(hundred.slice(0, 20).map(key));
    }
  });

  it('takes FTS5 syntax as plain words', async () => {
    for (const q of ['"zincblende', 'zinc*', 'GaAs OR Si', 'NEAR(GaAs Si)', '-GaAs', '"', '*', 'a"b"c']) {
      const answer = await app.inject({ url: `/search/?q=${encodeURIComponent(q)}` });
      expect(answer.statusCode, q).toBe(200);
    }
    expect((await search('q=%22zincblende')).total).toBe((await search('q=zincblende')).total);
    // OR is a word here, not an operator: GaAs AND or AND Si matches nothing.
    expect((await search('q=GaAs%20OR%20Si')).total).toBe(0);
  });

  it('refuses bad input with a 400 naming it', async () => {
    const cases: [string, RegExp][] = [
      [`q=${'a'.repeat(1001)}`, /q is 1001 characters/],
      ['elements=Si,Xx', /"Xx" is not a chemical element/],
      ['per_page=101', /per_page="101"/],
      ['page=0', /page="0"/],
      ['page=200&per_page=100', /page="200"/],
      ['nelements=x', /nelements="x"/],
      ['type=potato', /type="potato"/],
      ['state=running', /state="running"/],
      ['source=nope', /source="nope" is not a source/],
      ['colour=red', /unknown parameter "colour"/],
      ['q=a&q=b', /"q" is given more than once/],
    ];
    for (const [query, message] of cases) {
      const answer = await app.inject({ url: `/search/?${query}` });
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json().message, query).toMatch(message);
    }
  });

  it('leaves a damaged archive out with one warning', async () => {
    const answer = await search('q=zincblende');
    expect(answer.warnings.filter((w: string) => w.includes('"broken"'))).toHaveLength(1);
    const sources = (await app.inject({ url: '/search/sources' })).json();
    const broken = sources.sources.find((s: Json) => s.name === 'broken');
    expect(broken).toMatchObject({ indexed: false, nodes: null });
    expect(broken.problem).toMatch(/broken/);
  });

  it('lists every source with the figures of its index', async () => {
    const answer = (await app.inject({ url: '/search/sources' })).json();
    const rich = answer.sources.find((s: Json) => s.name === 'rich');
    expect(rich).toMatchObject({
      kind: 'archive',
      indexed: true,
      nodes: 2319,
      structures: 83,
      processes: 493,
    });
    expect(rich.archive_bytes).toBeGreaterThan(0);
    const server = (await app.inject({ url: '/rich/api/v4/server/' })).json().data;
    expect(rich.aiida_version).toBe(server.AiiDA_version);
    expect(rich.export_version).toBeTypeOf('string');
    expect((await app.inject({ url: '/search/sources?x=1' })).statusCode).toBe(400);
  });

  it('searches a source added to the folder within 10 s, and forgets a removed one at once', async () => {
    copyFileSync(join(folder, 'gen-b.aiida'), join(folder, 'gen-c.aiida'));
    catalog.update(scanFolders([folder]));
    const started = Date.now();
    let total = 0;
    while (Date.now() - started < 10_000 && total === 0) {
      total = (await search('source=gen-c')).total;
      if (total === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(total).toBe((await search('source=gen-b')).total);
    rmSync(join(folder, 'gen-c.aiida'));
    catalog.update(scanFolders([folder]));
    const after = await search('per_page=100&type=structure');
    expect(after.facets.source['gen-c']).toBeUndefined();
    expect(after.results.some((r: Json) => r.source === 'gen-c')).toBe(false);
  });
});
