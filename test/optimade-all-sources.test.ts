/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * The OPTIMADE database over every source of a portal (`/optimade/all/v1/`) on the rich data, aiida-core's test
 * archives and generated archives (one of them twice, under two names: the same UUIDs in two sources): for
 * each filter its count is the sum of the sources' own counts and its ids the union of theirs, named by source;
 * paging in the default and in a requested order gives the order one table holding them all would; its answers
 * have the specification's shape; the index lists it; a server of one source has none.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { scanFolders } from '../src/sources/discover.js';
import { sourceOpener } from '../src/sources/open.js';
import { SharedQueryProcesses } from '../src/storage/shared-query-processes.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { compareSqlValues } from '../src/optimade/all-listing.js';
import { richFile, sharedArchive } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';
import { optimadeApp } from './optimade-support.js';
import { legacyArchive } from './support/legacy-archives.js';
import { legacyDir, legacyPresent } from './support/legacy-corpus.js';
import { documentProblems, type Kind } from './support/optimade-shapes.js';

const ALL = '/optimade/all/v1';

/** Filters of every kind (the mandatory constructs, the specification's examples on structures). */
const FILTERS = [
  'elements HAS "Si"',
  'elements HAS "O"',
  'elements HAS ALL "Si","O"',
  'elements HAS ANY "Cu","Zr","Ga"',
  'elements HAS ONLY "Si","O"',
  'NOT elements HAS "O"',
  'elements HAS ALL "Si","O" AND nelements=2',
  'elements LENGTH 2',
  'nelements=2',
  'nelements>=2 AND nelements<4',
  'NOT nelements=2',
  '3 < nsites',
  'nsites<=3 OR nperiodic_dimensions=0',
  'chemical_formula_reduced="ClNa"',
  'chemical_formula_anonymous="AB"',
  'chemical_formula_anonymous > "AB"',
  'chemical_formula_descriptive CONTAINS "Ga"',
  'chemical_formula_reduced STARTS WITH "Al"',
  'chemical_formula_reduced ENDS WITH "O2"',
  '_quarry_label CONTAINS "random"',
  'chemical_formula_hill IS UNKNOWN',
  '_quarry_creator IS KNOWN',
  'structure_features HAS "disorder"',
  'dimension_types HAS 0',
  'last_modified > "2020-01-01T00:00:00Z"',
  'type = "structures" AND nsites=3',
  '_exmpl_gap > 1 OR nsites=3',
  'space_group_it_number >= 100 OR nsites = 1',
];

describe('OPTIMADE over every source of a portal', () => {
  const cacheDir = tempDir('quarry-optimade-all-');
  let backends: StorageBackend[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;
  const get = async (url: string) => {
    const r = await app.inject({ url });
    return { status: r.statusCode, headers: r.headers, body: r.body, json: () => JSON.parse(r.body) };
  };
  const ok = async (url: string, kind: Kind = 'listing') => {
    const r = await get(url);
    expect(r.status, `${url}: ${r.body.slice(0, 400)}`).toBe(200);
    expect(documentProblems(r.json(), kind), url).toEqual([]);
    return r.json();
  };
  /** Every entry of a listing, following links.next, with the pages' sizes. */
  const walk = async (first: string) => {
    const entries: any[] = [];
    let url: string | null = first;
    let pages = 0;
    let returned: number | undefined;
    while (url !== null) {
      const body = await ok(url);
      pages += 1;
      returned ??= body.meta.data_returned;
      expect(body.meta.data_returned, url).toBe(returned);
      entries.push(...body.data);
      url =
        body.links.next === null ? null : new URL(body.links.next).pathname + new URL(body.links.next).search;
    }
    return { entries, pages, returned: returned! };
  };
  const names = () => backends.map((b) => b.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const filtered = (base: string, filter: string, limit = 500) =>
    `${base}/structures?page_limit=${limit}&filter=${encodeURIComponent(filter)}`;
  /** Each source's own answer to a filter, with its ids as this database names them. */
  const perSource = async (filter: string) => {
    let count = 0;
    const ids: string[] = [];
    for (const name of names()) {
      const { entries, returned } = await walk(filtered(`/${name}/optimade/v1`, filter));
      count += returned;
      ids.push(...entries.map((e) => `${name}:${e.id}`));
    }
    return { count, ids };
  };

  beforeAll(async () => {
    const generated = await smallArchive(500, 21);
    const twin = join(tempDir('quarry-optimade-twin-'), 'twin.aiida');
    copyFileSync(generated, twin);
    const files = [
      richFile('rich.aiida'),
      generated,
      twin,
      await smallArchive(300, 4),
      ...['arithmetic.add', 'export_main_0001_simple', 'graph1'].flatMap(
        (name) => sharedArchive(`${name}.aiida`) ?? [],
      ),
      // Legacy archives: aiida-core's where ../shared has them, and one of the project's own generator.
      ...['export_0.3_simple.aiida', 'export_0.9_simple.aiida', 'export_0.4_simple.tar.gz'].flatMap((name) =>
        legacyPresent() ? [join(legacyDir(), name)] : [],
      ),
      await legacyArchive('0.10'),
    ];
    for (const file of files) backends.push(await openArchive(file, { cacheDir }));
    app = await buildApp({ backends, ui: false });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all(backends.map((b) => b.close()));
    backends = [];
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('counts and ids of every filter are the sum and the union of each source’s own', async () => {
    const everything = await perSource('nsites > 0');
    expect(everything.count).toBeGreaterThan(100);
    // The legacy archive's structures are among them, under its name.
    expect(everything.ids.some((id) => id.startsWith('export_0.10:'))).toBe(true);
    // Some structures are in two sources (the same archive under two names), under two ids.
    expect(new Set(everything.ids.map((id) => id.split(':')[1])).size).toBeLessThan(everything.ids.length);
    let selective = 0;
    for (const filter of ['nsites > 0', ...FILTERS]) {
      const own = await perSource(filter);
      const { entries, returned } = await walk(filtered(ALL, filter));
      expect(returned, filter).toBe(own.count);
      expect(
        entries.map((e) => e.id),
        filter,
      ).toEqual(own.ids);
      if (own.count > 0 && own.count < everything.count) selective += 1;
    }
    expect(selective).toBeGreaterThan(FILTERS.length - 5);
    const first = (await ok(`${ALL}/structures?page_limit=1`)).meta;
    expect(first.data_available).toBe(everything.count);
  });

  it('names the source in ids and links, and filters on ids that way', async () => {
    const [entry] = (await ok(filtered(ALL, 'elements HAS "O"', 1))).data;
    const [source, uuid] = entry.id.split(':');
    expect(names()).toContain(source);
    expect(entry.attributes.immutable_id).toBe(uuid);
    expect(entry.links.self).toBe(`http://localhost:80${ALL}/structures/${entry.id}`);
    expect(entry.attributes._quarry_url).toBe(`http://localhost:80/${source}/api/v4/nodes/${uuid}`);
    const one = await ok(`${ALL}/structures/${entry.id}`, 'entry');
    expect(one.data).toEqual(entry);
    const own = await ok(`/${source}/optimade/v1/structures/${uuid}`, 'entry');
    expect({ ...one.data.attributes }).toEqual(own.data.attributes);
    expect((await get(`${ALL}/structures/${uuid}`)).status).toBe(404);
    expect((await get(`${ALL}/structures/nosuchsource:${uuid}`)).status).toBe(404);

    const byId = await ok(filtered(ALL, `id = "${entry.id}"`));
    expect(byId.data.map((e: any) => e.id)).toEqual([entry.id]);
    const bySource = await walk(filtered(ALL, `id STARTS WITH "${source}:"`));
    expect(bySource.returned).toBe(
      (await ok(`/${source}/optimade/v1/structures?page_limit=1`)).meta.data_returned,
    );
    expect(bySource.entries.every((e: any) => e.id.startsWith(`${source}:`))).toBe(true);
    const byUuid = await ok(filtered(ALL, `immutable_id = "${uuid}"`));
    expect(byUuid.data.map((e: any) => e.id)).toContain(entry.id);
  });

  it('pages the default order as the sources one after another, by name', async () => {
    const own: string[] = [];
    for (const name of names())
      own.push(
        ...(await walk(filtered(`/${name}/optimade/v1`, 'nelements>=2'))).entries.map(
          (e) => `${name}:${e.id}`,
        ),
      );
    const paged = await walk(`${ALL}/structures?page_limit=7&filter=${encodeURIComponent('nelements>=2')}`);
    expect(paged.entries.map((e) => e.id)).toEqual(own);
    expect(paged.pages).toBe(Math.ceil(own.length / 7));
    // Pages that span two sources, asked by page_number and page_offset.
    const whole = (await walk(`${ALL}/structures?page_limit=500`)).entries.map((e) => e.id);
    const body = await ok(`${ALL}/structures?page_limit=200&page_number=2`);
    expect(body.data.map((e: any) => e.id)).toEqual(whole.slice(200, 400));
    const source = (id: string) => id.split(':')[0];
    // The last place where one source's entries end and the next one's begin.
    const boundary = whole.reduce(
      (last: number, id: string, i: number) => (i > 0 && source(id) !== source(whole[i - 1]) ? i : last),
      -1,
    );
    expect(boundary).toBeGreaterThan(0);
    const spanning = await ok(`${ALL}/structures?page_limit=6&page_number=${Math.floor(boundary / 6) + 1}`);
    expect(spanning.data.map((e: any) => e.id)).toEqual(
      whole.slice(Math.floor(boundary / 6) * 6, Math.floor(boundary / 6) * 6 + 6),
    );
    for (const offset of [0, 1, 37, boundary - 5, boundary - 1, whole.length - 2, whole.length].filter(
      (o) => o >= 0,
    )) {
      const page = await ok(`${ALL}/structures?page_limit=13&page_offset=${offset}`);
      expect(
        page.data.map((e: any) => e.id),
        String(offset),
      ).toEqual(whole.slice(offset, offset + 13));
      expect(page.meta.more_data_available).toBe(offset + 13 < whole.length);
    }
  });

  it('sorts across sources as one table would, and pages the sorted listing', async () => {
    for (const sort of [
      '-nsites,chemical_formula_reduced',
      'chemical_formula_hill',
      '-last_modified',
      'id',
      '_quarry_label',
      '-space_group_it_number,nsites',
    ]) {
      const keys = sort.split(',').map((k) => ({ name: k.replace(/^-/, ''), descending: k.startsWith('-') }));
      // Each source's own sorted listing, merged here: by the keys, then the source's place, then its order.
      const own: { id: string; a: any; at: number; rank: number }[] = [];
      for (const [at, name] of names().entries()) {
        const { entries } = await walk(`/${name}/optimade/v1/structures?page_limit=500&sort=${sort}`);
        entries.forEach((e, rank) =>
          own.push({ id: `${name}:${e.id}`, a: { ...e.attributes, id: `${name}:${e.id}` }, at, rank }),
        );
      }
      own.sort((x, y) => {
        for (const { name, descending } of keys) {
          // Timestamps are written alike (six fractional digits, Z): as text they order as in time.
          const order = compareSqlValues(x.a[name], y.a[name]);
          if (order !== 0) return descending ? -order : order;
        }
        return x.at - y.at || x.rank - y.rank;
      });
      const paged = await walk(`${ALL}/structures?page_limit=11&sort=${sort}`);
      expect(
        paged.entries.map((e) => e.id),
        sort,
      ).toEqual(own.map((o) => o.id));
      const deep = await ok(`${ALL}/structures?page_limit=5&page_offset=40&sort=${sort}`);
      expect(
        deep.data.map((e: any) => e.id),
        sort,
      ).toEqual(own.slice(40, 45).map((o) => o.id));
    }
    const refused = await get(`${ALL}/structures?sort=nsites&page_offset=20000`);
    expect(refused.status).toBe(403);
    expect(documentProblems(refused.json(), 'error')).toEqual([]);
    expect(refused.json().errors[0].detail).toMatch(/first 10000 entries/);
  });

  it('gives every answer the specification’s shape, and is a child of the index', async () => {
    const cases: [string, Kind, number][] = [
      [`${ALL}/info`, 'info', 200],
      [`${ALL}/info/structures`, 'entry-info', 200],
      [`${ALL}/links`, 'links', 200],
      [`${ALL}/structures`, 'listing', 200],
      [`/optimade/all/v1.3/structures?page_limit=2&sort=-nsites`, 'listing', 200],
      [`${ALL}/structures?response_fields=nsites,elements&page_limit=5`, 'listing', 200],
      [`${ALL}/structures?filter=${encodeURIComponent('_other_x = 1 OR nsites > 1')}`, 'listing', 200],
      [`${ALL}/structures?filter=nsites%3D`, 'error', 400],
      [`${ALL}/structures?page_limit=100000`, 'error', 403],
      [`${ALL}/structures?colour=red`, 'error', 400],
      [`${ALL}/structures?filter=${encodeURIComponent('a:b HAS "x":"y"')}`, 'error', 501],
      [`${ALL}/structures/not-an-id`, 'error', 404],
      [`${ALL}/references`, 'error', 404],
      ['/optimade/all/v2/info', 'error', 553],
    ];
    for (const [url, kind, status] of cases) {
      const r = await get(url);
      expect(r.status, `${url}: ${r.body.slice(0, 300)}`).toBe(status);
      expect(r.headers['content-type'], url).toContain('application/vnd.api+json');
      expect(documentProblems(r.json(), kind), url).toEqual([]);
    }
    // Its answers change with any source: no tag to revalidate with, unlike a source's own.
    expect((await get(`${ALL}/structures?page_limit=1`)).headers.etag).toBeUndefined();
    expect((await get(`/${names()[0]}/optimade/v1/structures?page_limit=1`)).headers.etag).toBeDefined();
    const info = (await ok(`${ALL}/info`, 'info')).data.attributes;
    expect(info.available_api_versions).toEqual([{ url: `http://localhost:80${ALL}/`, version: '1.3.0' }]);
    const warned = (await ok(filtered(ALL, '_exmpl_gap > 1 OR nsites=3'))).meta.warnings;
    expect(warned).toEqual([expect.objectContaining({ detail: expect.stringContaining('_exmpl_gap') })]);
    const root = (await ok(`${ALL}/links`, 'links')).data;
    expect(root.map((l: any) => [l.id, l.attributes.base_url])).toEqual([
      ['index', 'http://localhost:80/optimade/index/v1'],
    ]);
    expect((await get('/optimade/all/versions')).body).toBe('version\n1\n');

    const children = (
      await ok(`/optimade/index/v1/links?filter=${encodeURIComponent('link_type="child"')}`, 'links')
    ).data;
    expect(children.map((l: any) => l.id)).toEqual([...backends.map((b) => b.name), 'optimade/all']);
    const all = children.find((l: any) => l.id === 'optimade/all');
    expect(all.attributes.base_url).toBe(`http://localhost:80${ALL}`);
    // Not under a source's path.
    const mounted = await get(`/${names()[0]}/optimade/all/v1/info`);
    expect(mounted.status).toBe(404);
    expect(mounted.json().errors[0].detail).toMatch(/server root/);
  });
});

describe('a folder portal with fewer sources open than served, and one that cannot be opened', () => {
  it('reads the sources in turn within its bound, and leaves the broken one out with a warning', async () => {
    const folder = tempDir('quarry-optimade-all-folder-');
    const archive = await smallArchive(200, 8);
    for (const name of ['alpha', 'beta', 'gamma']) copyFileSync(archive, join(folder, `${name}.aiida`));
    writeFileSync(join(folder, 'broken.aiida'), 'not a zip at all');
    const shared = new SharedQueryProcesses({ size: 1 });
    const catalog = new SourceCatalog(
      sourceOpener({ cacheDir: tempDir('quarry-cache-'), sharedProcesses: shared }),
      {
        maxOpen: 2,
      },
    );
    catalog.add(scanFolders([folder]));
    const app = await buildApp({ catalog, ui: false });
    try {
      const own = (
        await app.inject(
          `/alpha/optimade/v1/structures?filter=${encodeURIComponent('nelements>=2')}&page_limit=500`,
        )
      ).json();
      const r = await app.inject(
        `${ALL}/structures?filter=${encodeURIComponent('nelements>=2')}&page_limit=500`,
      );
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(documentProblems(body, 'listing')).toEqual([]);
      expect(body.meta.data_returned).toBe(3 * own.meta.data_returned);
      expect(body.data.map((e: any) => e.id)).toEqual(
        ['alpha', 'beta', 'gamma'].flatMap((name) => own.data.map((e: any) => `${name}:${e.id}`)),
      );
      expect(body.meta.warnings).toEqual([
        expect.objectContaining({
          detail: expect.stringMatching(/^the source broken is left out: .*not a zip/),
        }),
      ]);
      expect(catalog.openSources).toBeLessThanOrEqual(2);
      // The broken source's own id is a 502 naming it; an unknown one a 404.
      const one = await app.inject(`${ALL}/structures/broken:${own.data[0].id}`);
      expect(one.statusCode).toBe(502);
      expect(one.json().errors[0].detail).toMatch(/broken/);
    } finally {
      await app.close();
      await catalog.close();
      await shared.close();
    }
  });
});

describe('a server of one source', () => {
  it('has no database over every source, and its index lists none', async () => {
    const served = await optimadeApp(await smallArchive(120, 2));
    try {
      const r = await served.get(`${ALL}/info`);
      expect(r.status).toBe(404);
      expect(r.json().errors[0].detail).toMatch(/portal/);
      const children = served.get('/optimade/index/v1/links');
      expect((await children).json().data.map((l: any) => l.id)).not.toContain('optimade/all');
    } finally {
      await served.close();
    }
  });
});
