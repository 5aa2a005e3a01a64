/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * The OPTIMADE endpoints over HTTP (app.inject) on the rich conformance archive: envelopes, the media type,
 * errors in the specification's form, paging and sorting, and every mandatory filter construct, each checked
 * against the same condition evaluated here on the full listing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optimadeFilterExamples, richFile } from './conformance/corpus.js';
import { allEntries, optimadeApp } from './optimade-support.js';
import { documentProblems, type Kind } from './support/optimade-shapes.js';

const RICH = richFile('rich.aiida');
const EXAMPLES = optimadeFilterExamples() ?? '';
const MEDIA = 'application/vnd.api+json';

describe('OPTIMADE over HTTP on rich.aiida', () => {
  let served: Awaited<ReturnType<typeof optimadeApp>>;
  let all: any[];
  const q = (filter: string) => `/optimade/v1/structures?page_limit=500&filter=${encodeURIComponent(filter)}`;
  const ids = async (filter: string) => {
    const r = await served.get(q(filter));
    expect(r.status, `${filter}: ${r.body}`).toBe(200);
    return (r.json().data as any[]).map((e) => e.id).sort();
  };
  const expected = (predicate: (a: any) => boolean) =>
    all
      .filter((e) => predicate(e.attributes))
      .map((e) => e.id)
      .sort();
  const error = async (url: string) => {
    const r = await served.get(url);
    expect(r.headers['content-type']).toContain(MEDIA);
    const body = r.json();
    expect(body.meta.api_version).toBe('1.3.0');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].status).toBe(String(r.status));
    expect(body.errors[0].detail.length).toBeGreaterThan(10);
    return { status: r.status, error: body.errors[0] };
  };

  beforeAll(async () => {
    served = await optimadeApp(RICH);
    // Once the space groups are found (a request that reads them waits for them), the default listing has them.
    const symmetry = await served.get(
      '/optimade/v1/structures?page_limit=1&response_fields=space_group_it_number',
    );
    expect(symmetry.status).toBe(200);
    all = await allEntries(served.get, 'page_limit=500');
  });
  afterAll(async () => served?.close());

  it('answers info, info/structures, links, versions and the index', async () => {
    const info = await served.get('/optimade/v1/info');
    expect(info.headers['content-type']).toContain(MEDIA);
    const body = info.json();
    expect(body.data).toMatchObject({ type: 'info', id: '/' });
    expect(body.data.attributes).toMatchObject({
      api_version: '1.3.0',
      formats: ['json'],
      entry_types_by_format: { json: ['structures'] },
      is_index: false,
      available_api_versions: [{ url: 'http://localhost:80/optimade/v1/', version: '1.3.0' }],
    });
    expect(body.meta).toMatchObject({ query: { representation: '/info' }, provider: { prefix: 'quarry' } });

    const structures = (await served.get('/optimade/v1/info/structures')).json().data;
    expect(structures.id).toBe('structures');
    for (const name of [
      'id',
      'immutable_id',
      'last_modified',
      'elements',
      'nelements',
      'elements_ratios',
      'chemical_formula_descriptive',
      'chemical_formula_reduced',
      'chemical_formula_hill',
      'chemical_formula_anonymous',
      'dimension_types',
      'nperiodic_dimensions',
      'lattice_vectors',
      'cartesian_site_positions',
      'nsites',
      'species_at_sites',
      'species',
      'structure_features',
      '_quarry_url',
      '_quarry_pk',
      '_quarry_label',
      '_quarry_creator',
    ]) {
      const p = structures.properties[name];
      expect(p, name).toBeDefined();
      expect(typeof p.description).toBe('string');
      expect(typeof p.sortable).toBe('boolean');
      expect(typeof p.queryable).toBe('boolean');
      expect(p.type).toMatch(/^(string|integer|float|timestamp|list)$/);
    }
    expect(structures.properties.lattice_vectors.unit).toBe('Å');
    expect(structures.properties.nsites).toMatchObject({ sortable: true, queryable: true, type: 'integer' });

    const links = (await served.get('/optimade/v1/links')).json().data;
    expect(links).toEqual([
      expect.objectContaining({
        id: 'index',
        attributes: expect.objectContaining({
          link_type: 'root',
          base_url: 'http://localhost:80/optimade/index/v1',
        }),
      }),
    ]);
    const index = (await served.get('/optimade/index/v1/info')).json().data;
    expect(index.attributes.is_index).toBe(true);
    expect(index.relationships.default.data).toEqual({ type: 'links', id: 'rich' });
    const children = (await served.get('/optimade/index/v1/links'))
      .json()
      .data.filter((l: any) => l.attributes.link_type === 'child');
    expect(children.map((c: any) => [c.id, c.attributes.base_url])).toEqual([
      ['rich', 'http://localhost:80/rich/optimade/v1'],
    ]);
    // The child's base URL answers, and its links name the index at the server's root as theirs.
    const child = new URL(children[0].attributes.base_url).pathname;
    const childInfo = await served.get(`${child}/info`);
    expect(childInfo.status).toBe(200);
    expect(childInfo.json().meta.query.representation).toBe('/info');
    const childRoot = (await served.get(`${child}/links`)).json().data.find((l: any) => l.id === 'index');
    expect(childRoot?.attributes.base_url).toBe('http://localhost:80/optimade/index/v1');

    const versions = await served.get('/optimade/versions');
    expect(versions.headers['content-type']).toBe('text/csv; header=present');
    expect(versions.body).toBe('version\n1\n');
    expect((await error('/optimade/v1/references')).status).toBe(404);
    const head = await served.app.inject({ method: 'HEAD', url: '/optimade/v1/structures' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toContain(MEDIA);
    const preflight = await served.app.inject({
      method: 'OPTIONS',
      url: '/optimade/v1/structures',
      headers: { origin: 'https://client.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
  });

  it("gives every answer the shape the specification requires (its own tests' checks, no validator here)", async () => {
    const first = all[0].id;
    const cases: [string, Kind, number][] = [
      ['/optimade/v1/info', 'info', 200],
      ['/optimade/v1/info/structures', 'entry-info', 200],
      ['/optimade/v1/links', 'links', 200],
      ['/optimade/v1/structures', 'listing', 200],
      ['/optimade/v1/structures?page_limit=2&sort=-nsites', 'listing', 200],
      ['/optimade/v1/structures?response_fields=nsites,elements&page_limit=5', 'listing', 200],
      [`/optimade/v1/structures?filter=${encodeURIComponent('_other_x = 1 OR nsites > 1')}`, 'listing', 200],
      [`/optimade/v1/structures/${first}`, 'entry', 200],
      ['/optimade/index/v1/info', 'info', 200],
      ['/optimade/index/v1/links', 'links', 200],
      ['/optimade/v1/structures?filter=nsites%3D', 'error', 400],
      ['/optimade/v1/structures?page_limit=100000', 'error', 403],
      ['/optimade/v1/structures?colour=red', 'error', 400],
      [`/optimade/v1/structures?filter=${encodeURIComponent('a:b HAS "x":"y"')}`, 'error', 501],
      ['/optimade/v1/structures/not-a-uuid', 'error', 404],
      ['/optimade/v1/references', 'error', 404],
    ];
    for (const [url, kind, status] of cases) {
      const r = await served.get(url);
      expect(r.status, url).toBe(status);
      expect(r.headers['content-type'], url).toContain(MEDIA);
      expect(documentProblems(r.json(), kind), url).toEqual([]);
    }
    // The checks can fail: a document without its required parts is told apart.
    expect(documentProblems({ data: [], meta: {} }, 'listing').length).toBeGreaterThan(3);
    expect(documentProblems({ errors: [{ status: 400 }], data: null, meta: {} }, 'error')).toContain(
      'an error document has no data',
    );
  });

  it('tags answers weakly (their time_stamp differs), answers 304 to a held tag, and tags no error', async () => {
    const url = '/optimade/v1/structures?page_limit=3&sort=nsites';
    const first = await served.app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const again = await served.app.inject({ url, headers: { 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(tag);
    // Another page, another tag; a tag that is not held gets the whole answer.
    const other = await served.get('/optimade/v1/structures?page_limit=4&sort=nsites');
    expect(other.headers.etag).not.toBe(tag);
    const stale = await served.app.inject({ url, headers: { 'if-none-match': 'W/"not-this-one"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.json().meta.data_returned).toBe(first.json().meta.data_returned);
    for (const path of ['/optimade/v1/info', '/optimade/v1/info/structures', '/optimade/v1/links'])
      expect((await served.get(path)).headers.etag, path).toMatch(/^W\//);
    expect((await served.get('/optimade/v1/structures?filter=nsites<')).headers.etag).toBeUndefined();
    // The index lists the catalog, which changes with no data version: never tagged.
    expect((await served.get('/optimade/index/v1/links')).headers.etag).toBeUndefined();
  });

  it("gives one entry by id, and 404 in the specification's form for an unknown one", async () => {
    const one = all[3];
    const r = (await served.get(`/optimade/v1/structures/${one.id}`)).json();
    expect(r.data).toEqual(one);
    expect(r.meta).toMatchObject({ data_returned: 1, more_data_available: false });
    const fields = (await served.get(`/optimade/v1/structures/${one.id}?response_fields=nsites`)).json();
    expect(fields.data.attributes).toEqual({ nsites: one.attributes.nsites });
    expect((await error('/optimade/v1/structures/not-a-uuid')).status).toBe(404);
    // A single entry ignores the parameters it does not take (the specification: MUST be ignored).
    const ignored = await served.get(`/optimade/v1/structures/${one.id}?filter=nsites=1&foo=1`);
    expect(ignored.status).toBe(200);
    expect(ignored.json().data.id).toBe(one.id);
  });

  it('pages by page_limit, page_offset and page_number, with links.next and counts', async () => {
    const first = (await served.get('/optimade/v1/structures?page_limit=5')).json();
    expect(first.data).toHaveLength(5);
    expect(first.meta).toMatchObject({
      data_returned: all.length,
      data_available: all.length,
      more_data_available: true,
    });
    expect(first.links.next).toBe('http://localhost:80/optimade/v1/structures?page_limit=5&page_offset=5');
    const third = (await served.get('/optimade/v1/structures?page_limit=5&page_number=3')).json();
    expect(third.data.map((e: any) => e.id)).toEqual(all.slice(10, 15).map((e) => e.id));
    const offset = (await served.get('/optimade/v1/structures?page_limit=5&page_offset=12')).json();
    expect(offset.data.map((e: any) => e.id)).toEqual(all.slice(12, 17).map((e) => e.id));
    const last = (
      await served.get(`/optimade/v1/structures?page_limit=5&page_offset=${all.length - 2}`)
    ).json();
    expect(last.data).toHaveLength(2);
    expect(last.meta.more_data_available).toBe(false);
    expect(last.links.next).toBeNull();
    // Following next through a filtered listing gives every match once.
    const walked = await allEntries(served.get, `page_limit=3&filter=${encodeURIComponent('nelements>=2')}`);
    expect(walked.map((e) => e.id).sort()).toEqual(expected((a) => a.nelements >= 2));

    expect((await error('/optimade/v1/structures?page_limit=501')).status).toBe(403);
    for (const bad of [
      'page_limit=0',
      'page_limit=x',
      'page_offset=-1',
      'page_number=0',
      'page_offset=1&page_number=2',
    ])
      expect((await error(`/optimade/v1/structures?${bad}`)).status, bad).toBe(400);
    expect((await error('/optimade/v1/structures?page_cursor=abc')).status).toBe(501);
  });

  it('sorts on sortable properties, ascending and descending, and refuses the others', async () => {
    const sorted = (
      await served.get('/optimade/v1/structures?page_limit=500&sort=-nsites,_quarry_label')
    ).json().data;
    const key = (e: any) => [-e.attributes.nsites, e.attributes._quarry_label] as const;
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [key(sorted[i - 1]), key(sorted[i])];
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1])).toBe(true);
    }
    const byTime = (await served.get('/optimade/v1/structures?page_limit=500&sort=last_modified')).json()
      .data;
    const times = byTime.map((e: any) => Date.parse(e.attributes.last_modified));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const e = await error('/optimade/v1/structures?sort=elements');
    expect(e).toMatchObject({ status: 400, error: { source: { parameter: 'sort' } } });
  });

  it('takes the standard parameters and refuses unknown unprefixed ones', async () => {
    for (const ok of [
      'response_format=json',
      'email_address=a@b.c',
      'api_hint=v1',
      '_other_thing=1',
      'include=',
    ]) {
      expect((await served.get(`/optimade/v1/structures?${ok}`)).status, ok).toBe(200);
    }
    expect((await error('/optimade/v1/structures?limit=3')).error.source).toEqual({ parameter: 'limit' });
    expect((await error('/optimade/v1/structures?response_format=xml')).status).toBe(400);
    expect((await error('/optimade/v1/structures?api_hint=1')).status).toBe(400);
    expect((await error('/optimade/v1/info?filter=nsites=1')).status).toBe(400);
    const fields = (
      await served.get('/optimade/v1/structures?response_fields=nsites,_other_x&page_limit=1')
    ).json();
    expect(fields.data[0].attributes).toEqual({ nsites: all[0].attributes.nsites, _other_x: null });
    expect((await error('/optimade/v1/structures?response_fields=bogus')).status).toBe(400);
  });

  const CASES: [string, (a: any) => boolean][] = [
    ['nelements=2', (a) => a.nelements === 2],
    ['nelements>=2 AND nelements<4', (a) => a.nelements >= 2 && a.nelements < 4],
    ['NOT nelements=2', (a) => a.nelements !== 2],
    [
      'nelements!=2 AND NOT (nsites>3 OR nperiodic_dimensions=3)',
      (a) => a.nelements !== 2 && !(a.nsites > 3 || a.nperiodic_dimensions === 3),
    ],
    ['3 < nsites', (a) => a.nsites > 3],
    ['nsites = 2.0', (a) => a.nsites === 2],
    ['chemical_formula_reduced="ClNa"', (a) => a.chemical_formula_reduced === 'ClNa'],
    ['chemical_formula_anonymous > "AB"', (a) => a.chemical_formula_anonymous > 'AB'],
    ['chemical_formula_descriptive CONTAINS "Ga"', (a) => a.chemical_formula_descriptive.includes('Ga')],
    ['chemical_formula_reduced STARTS WITH "Al"', (a) => a.chemical_formula_reduced.startsWith('Al')],
    ['chemical_formula_reduced STARTS "Ga"', (a) => a.chemical_formula_reduced.startsWith('Ga')],
    ['chemical_formula_reduced ENDS WITH "Zr"', (a) => a.chemical_formula_reduced.endsWith('Zr')],
    ['_quarry_label CONTAINS "random"', (a) => a._quarry_label.includes('random')],
    ['elements HAS "Ga"', (a) => a.elements.includes('Ga')],
    ['elements HAS ALL "Ga","S"', (a) => a.elements.includes('Ga') && a.elements.includes('S')],
    ['elements HAS ANY "Cu","Zr"', (a) => a.elements.includes('Cu') || a.elements.includes('Zr')],
    [
      'elements HAS ONLY "Ga","S","Se","N"',
      (a) => a.elements.every((e: string) => ['Ga', 'S', 'Se', 'N'].includes(e)),
    ],
    ['NOT elements HAS "O"', (a) => !a.elements.includes('O')],
    [
      'elements HAS ALL "Si","O" AND nelements=2',
      (a) => a.elements.includes('Si') && a.elements.includes('O') && a.nelements === 2,
    ],
    ['elements HAS ALL "Ga","S" AND nelements=2', (a) => a.elements.join() === 'Ga,S'],
    [
      'nelements=3 AND elements HAS ALL "Ga","N","Se" AND nsites < 4',
      (a) => a.elements.join() === 'Ga,N,Se' && a.nsites < 4,
    ],
    ['nelements=2 AND elements HAS ALL "Ga","Ga"', (a) => a.nelements === 2 && a.elements.includes('Ga')],
    ['elements LENGTH 3', (a) => a.elements.length === 3],
    ['elements LENGTH >= 5', (a) => a.elements.length >= 5],
    ['species_at_sites LENGTH 2', (a) => a.species_at_sites.length === 2],
    ['dimension_types HAS 0', (a) => a.dimension_types.includes(0)],
    ['structure_features HAS "disorder"', (a) => a.structure_features.includes('disorder')],
    ['species_at_sites HAS "Pt1"', (a) => a.species_at_sites.includes('Pt1')],
    ['elements_ratios HAS > 0.6', (a) => a.elements_ratios.some((r: number) => r > 0.6)],
    ['elements HAS < "B"', (a) => a.elements.some((e: string) => e < 'B')],
    ['chemical_formula_hill IS UNKNOWN', (a) => a.chemical_formula_hill === null],
    [
      'chemical_formula_hill IS KNOWN AND _quarry_creator IS KNOWN',
      (a) => a.chemical_formula_hill !== null && a._quarry_creator !== null,
    ],
    ['_quarry_creator', (a) => a._quarry_creator !== null],
    ['NOT _quarry_creator IS KNOWN', (a) => a._quarry_creator === null],
    [
      'last_modified > "2020-01-01T00:00:00Z"',
      (a) => Date.parse(a.last_modified) > Date.parse('2020-01-01T00:00:00Z'),
    ],
    [
      'last_modified <= "2019-03-05T01:00:00+01:00"',
      (a) => Date.parse(a.last_modified) <= Date.parse('2019-03-05T00:00:00Z'),
    ],
    ['_quarry_pk >= 4000 OR nsites = 12', (a) => a._quarry_pk >= 4000 || a.nsites === 12],
    [
      'id = "' + '5533b067-13f2-4606-bbef-26d1aa60edc7' + '"',
      (a) => a.immutable_id === '5533b067-13f2-4606-bbef-26d1aa60edc7',
    ],
    ['type = "structures" AND nsites=3', (a) => a.nsites === 3],
    ['1 < 2 AND nsites=3', (a) => a.nsites === 3],
    ['2 < 1 OR nsites=3', (a) => a.nsites === 3],
    // Another provider's property is unknown: no comparison on it matches, IS UNKNOWN does.
    ['_exmpl_gap > 1 OR nsites=3', (a) => a.nsites === 3],
    ['NOT _exmpl_gap > 1', () => false],
    ['_exmpl_gap IS UNKNOWN AND nsites=3', (a) => a.nsites === 3],
  ];

  it('filters with every mandatory construct as the same condition here says', async () => {
    expect(all.length).toBeGreaterThan(50);
    for (const [filter, predicate] of CASES) {
      const want = expected(predicate);
      expect(await ids(filter), filter).toEqual(want);
    }
    // The cases are not vacuous: most select some structures and leave others out.
    const selective = CASES.filter(([, p]) => {
      const n = expected(p).length;
      return n > 0 && n < all.length;
    });
    expect(selective.length).toBeGreaterThan(CASES.length - 3);
  });

  it('warns about properties of other providers', async () => {
    const body = (await served.get(q('_exmpl_gap > 1 OR nsites=3'))).json();
    expect(body.meta.warnings).toEqual([
      expect.objectContaining({ type: 'warning', detail: expect.stringContaining('_exmpl_gap') }),
    ]);
  });

  it('answers bad filters 400 and optional features it does not serve 501, saying which', async () => {
    const bad: [string, number, RegExp][] = [
      ['nsites <> 3', 400, /character/],
      ['bogus = 3', 400, /unknown property bogus/],
      ['_quarry_bogus = 3', 400, /unknown property/],
      ['last_modified > "yesterday"', 400, /RFC 3339/],
      ['nsites = "3"', 501, /conversion/],
      ['chemical_formula_reduced = 3', 501, /conversion/],
      ['elements = "Si"', 501, /list/],
      ['elements LENGTH "3"', 501, /LENGTH/],
      ['nsites = TRUE', 501, /TRUE/],
      ['"a" = "a"', 501, /constants/],
      ['nsites > nelements', 501, /two properties/],
      ['elements:elements_ratios HAS "Si":0.5', 501, /Correlated/],
      ['references.doi = "x"', 501, /Nested/],
      ['lattice_vectors HAS 0', 501, /lattice_vectors/],
      ['nsites < 1e999', 501, /range/],
    ];
    for (const [filter, status, detail] of bad) {
      const r = await error(q(filter));
      expect(r.status, filter).toBe(status);
      expect(r.error.detail, filter).toMatch(detail);
      expect(r.error.source).toEqual({ parameter: 'filter' });
    }
  });

  it.skipIf(EXAMPLES === '')(
    'answers every example of the specification: a fail file 400, any other never 400 for its syntax',
    async () => {
      for (const file of readdirSync(EXAMPLES).filter((f) => f.endsWith('.filter'))) {
        const text = readFileSync(join(EXAMPLES, file), 'utf8');
        const r = await served.get(`/optimade/v1/structures?filter=${encodeURIComponent(text)}`);
        expect([200, 400, 501], file).toContain(r.status);
        const detail = r.status === 200 ? '' : r.json().errors[0].detail;
        if (file.endsWith('_fail.filter') && file !== 'f06_fail.filter')
          expect(detail, file).toMatch(/not in the OPTIMADE filter language/);
        else expect(detail, file).not.toMatch(/not in the OPTIMADE filter language/);
      }
    },
  );
});
