/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * The specification's MUST rules (v1.3.0) that the community's validator checks, each a test of its own, on
 * the rich conformance archive: every property the specification defines for structures is known (asked in
 * response_fields it is there, null when Quarry has no value; IS KNOWN and IS UNKNOWN split the structures
 * exactly), unknown parameters (a 400 on listings, ignored on a single entry), the versioned base URLs, the
 * links listings' filter and paging, and the rules fuzzing found broken (null rule, empty substrings, exact
 * timestamps, bounds before a filter runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from './conformance/corpus.js';
import { allEntries, optimadeApp } from './optimade-support.js';
import { documentProblems, type Kind } from './support/optimade-shapes.js';
import { checkFilterCost, FILTER_BOUNDS } from '../src/optimade/filter-bounds.js';

/** Every property of a structures entry in the specification v1.3.0 ("Structures Entries" and the common ones). */
const SPEC_STRUCTURE_PROPERTIES = [
  'id',
  'type',
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
  'space_group_symmetry_operations_xyz',
  'space_group_symbol_hall',
  'space_group_symbol_hermann_mauguin',
  'space_group_symbol_hermann_mauguin_extended',
  'space_group_it_number',
  'cartesian_site_positions',
  'fractional_site_positions',
  'site_coordinate_span',
  'site_coordinate_span_description',
  'nsites',
  'species_at_sites',
  'species',
  'assemblies',
  'wyckoff_positions',
  'structure_features',
  'optimization_type',
];

describe('the OPTIMADE specification’s MUST rules on rich.aiida', () => {
  let served: Awaited<ReturnType<typeof optimadeApp>>;
  let all: any[];
  let infoProperties: string[];

  const get = (url: string) => served.get(url);
  const shaped = async (url: string, kind: Kind, status = 200) => {
    const r = await get(url);
    expect(r.status, `${url}: ${r.body.slice(0, 300)}`).toBe(status);
    expect(documentProblems(r.json(), kind), url).toEqual([]);
    return r.json();
  };
  const count = async (filter: string) =>
    (await shaped(`/optimade/v1/structures?page_limit=1&filter=${encodeURIComponent(filter)}`, 'listing'))
      .meta.data_returned as number;

  beforeAll(async () => {
    served = await optimadeApp(richFile('rich.aiida'));
    all = await allEntries(served.get, 'page_limit=500');
    infoProperties = Object.keys((await get('/optimade/v1/info/structures')).json().data.properties);
  });
  afterAll(async () => served?.close());

  const everyProperty = () => [...new Set([...SPEC_STRUCTURE_PROPERTIES, ...infoProperties])];

  it('returns every property asked in response_fields, on a listing and on a single entry (null where unknown)', async () => {
    const names = everyProperty();
    const fields = names.join(',');
    const listing = await shaped(`/optimade/v1/structures?page_limit=5&response_fields=${fields}`, 'listing');
    const one = await shaped(`/optimade/v1/structures/${all[0].id}?response_fields=${fields}`, 'entry');
    for (const entry of [...listing.data, one.data]) {
      // id and type are the resource object's own members.
      for (const name of names.filter((n) => n !== 'id' && n !== 'type'))
        expect(Object.hasOwn(entry.attributes, name), `${name} in ${entry.id}`).toBe(true);
    }
    for (const name of ['assemblies', 'optimization_type', 'space_group_symbol_hermann_mauguin_extended'])
      expect(one.data.attributes[name]).toBeNull();
    expect(one.data.attributes.site_coordinate_span).toBe('unit_cell');
  });

  it('knows every property in filters: IS KNOWN and IS UNKNOWN split the structures as their values say', async () => {
    const full = await allEntries(served.get, `page_limit=500&response_fields=${everyProperty().join(',')}`);
    for (const name of everyProperty()) {
      const unknown = full.filter((e) =>
        name === 'id' || name === 'type' ? false : e.attributes[name] === null,
      ).length;
      expect(await count(`${name} IS UNKNOWN`), `${name} IS UNKNOWN`).toBe(unknown);
      expect(await count(`${name} IS KNOWN`), `${name} IS KNOWN`).toBe(full.length - unknown);
    }
  });

  it('answers a comparison on a defined property it does not serve 501, and an undefined name 400', async () => {
    for (const filter of [
      'assemblies HAS 1',
      'optimization_type="local"',
      'site_coordinate_span_description="x"',
    ])
      expect(
        (await shaped(`/optimade/v1/structures?filter=${encodeURIComponent(filter)}`, 'error', 501)).errors[0]
          .detail,
      ).toMatch(/always null/);
    for (const name of ['not_a_property', '_quarry_nothing', 'constructor', '__proto__'])
      expect(
        (await shaped(`/optimade/v1/structures?filter=${name}=1`, 'error', 400)).errors[0].detail,
      ).toContain(`unknown property ${name}`);
    // Another provider's property is unknown: no match, no error.
    expect(await count('_exmpl_band_gap < 2')).toBe(0);
    expect(await count('_exmpl_band_gap IS UNKNOWN')).toBe(all.length);
    expect(
      (await shaped('/optimade/v1/structures?response_fields=nsites,not_a_property', 'error', 400)).errors[0]
        .detail,
    ).toContain('unknown property not_a_property');
  });

  it('refuses unknown parameters on listings, ignores them on a single entry, ignores prefixed ones', async () => {
    for (const url of ['/optimade/v1/structures', '/optimade/v1/links', '/optimade/index/v1/links'])
      await shaped(`${url}?foo=1`, 'error', 400);
    for (const url of ['/optimade/v1/structures', '/optimade/v1/links', '/optimade/index/v1/links'])
      await shaped(`${url}?_exmpl_foo=1`, 'listing');
    const one = await shaped(
      `/optimade/v1/structures/${all[0].id}?foo=1&filter=nsites=1&page_limit=x`,
      'entry',
    );
    expect(one.data.id).toBe(all[0].id);
  });

  it('serves v1, v1.3 and v1.3.0, and answers other versions 553 Version Not Supported', async () => {
    for (const version of ['v1', 'v1.3', 'v1.3.0']) {
      await shaped(`/optimade/${version}/info`, 'info');
      const listing = await shaped(`/optimade/${version}/structures?page_limit=2`, 'listing');
      expect(listing.links.next).toContain(`/optimade/${version}/structures?`);
      await shaped(`/optimade/index/${version}/info`, 'info');
    }
    for (const url of [
      '/optimade/v2/info',
      '/optimade/v1.2/structures',
      '/optimade/v0/info',
      '/optimade/index/v2/links',
    ])
      expect((await shaped(url, 'error', 553)).errors[0].title).toBe('Version Not Supported');
    await shaped('/optimade/v1/nothing', 'error', 404);
    await shaped('/optimade/v1/structures?api_hint=v1.2&page_limit=1', 'listing');
    expect((await shaped('/optimade/v1/structures?api_hint=v2', 'error', 553)).errors[0].detail).toContain(
      'api_hint',
    );
  });

  it('filters and pages the links listings (link_type="child")', async () => {
    const children = await shaped(
      `/optimade/index/v1/links?filter=${encodeURIComponent('link_type="child"')}`,
      'links',
    );
    expect(children.data.length).toBeGreaterThan(0);
    expect(children.data.every((l: any) => l.attributes.link_type === 'child')).toBe(true);
    const page = await shaped('/optimade/index/v1/links?page_limit=1', 'links');
    expect(page.data).toHaveLength(1);
    expect(page.meta.more_data_available).toBe(true);
    expect(page.links.next).toContain('page_offset=1');
    const none = await shaped(
      `/optimade/v1/links?filter=${encodeURIComponent('NOT link_type="root"')}`,
      'links',
    );
    expect(none.data).toEqual([]);
    await shaped(`/optimade/index/v1/links?filter=${encodeURIComponent('nsites=1')}`, 'error', 400);
  });

  it('reports meta.schema', async () => {
    expect((await get('/optimade/v1/structures?page_limit=1')).json().meta.schema).toMatch(/^https:\/\//);
  });

  it('applies one null rule to every operator, and compares empty substrings and fine timestamps exactly', async () => {
    const hillNull = all.filter((e) => e.attributes.chemical_formula_hill === null).length;
    expect(hillNull).toBeGreaterThan(0);
    // A comparison with null never matches, and neither does its NOT (as the reference implementation says).
    for (const op of ['STARTS ""', 'ENDS ""', 'CONTAINS ""', '= "x"', '!= "x"']) {
      expect(
        (await count(`chemical_formula_hill ${op}`)) + (await count(`NOT chemical_formula_hill ${op}`)),
        op,
      ).toBe(all.length - hillNull);
    }
    expect(await count('chemical_formula_reduced ENDS ""')).toBe(all.length);
    expect(await count('type STARTS "struct"')).toBe(all.length);
    expect(await count('type ENDS "x"')).toBe(0);
    // An instant between two microseconds equals no stored time, and orders by its place between them.
    const stamp = all[0].attributes.last_modified as string;
    const finer = stamp.replace('Z', '00000001Z');
    expect(await count(`last_modified = "${finer}"`)).toBe(0);
    expect(await count(`last_modified != "${finer}"`)).toBe(all.length);
    expect(await count(`last_modified > "${finer}"`)).toBe(await count(`last_modified > "${stamp}"`));
    expect(await count(`last_modified <= "${finer}"`)).toBe(await count(`last_modified <= "${stamp}"`));
  });

  it('refuses filters past its bounds before they run, with a 400 that names the bound', async () => {
    const refused = async (filter: string, bound: RegExp) => {
      const r = await get(`/optimade/v1/structures?filter=${encodeURIComponent(filter)}`);
      expect(r.status, filter.slice(0, 80)).toBe(400);
      expect(r.json().errors[0].detail).toMatch(bound);
    };
    const terms = Array.from({ length: FILTER_BOUNDS.terms + 1 }, (_, i) => `nsites=${i}`);
    await refused(terms.join(' OR '), new RegExp(`bound of ${FILTER_BOUNDS.terms}`));
    await refused(`${'NOT('.repeat(40)}nsites=1${')'.repeat(40)}`, /nested more than/);
    await refused(`${'('.repeat(3000)}nsites=1${')'.repeat(3000)}`, /characters|nested/);
    const symbols = Array.from({ length: FILTER_BOUNDS.values + 1 }, () => '"Si"').join(',');
    await refused(`elements HAS ANY ${symbols}`, /values after HAS/);
    const bounds = Array.from({ length: FILTER_BOUNDS.listValues + 1 }, (_, i) => `>${i / 100}`).join(',');
    await refused(`elements_ratios HAS ALL ${bounds}`, /lists other than elements/);
    const sort = await get(`/optimade/v1/structures?sort=${Array(50).fill('nsites').join(',')}`);
    expect(sort.status).toBe(400);
    expect(sort.json().errors[0].detail).toMatch(/at most/);
    // The values read from every structure's list are bounded by the source's size too.
    expect(() => checkFilterCost(FILTER_BOUNDS.listValues, 100_000)).not.toThrow();
    expect(() => checkFilterCost(2, 1_000_000)).not.toThrow();
    expect(() => checkFilterCost(3, 1_000_000)).toThrow(/takes 2 at most/);
    expect(() => checkFilterCost(1, 10_000_000)).not.toThrow();
    // Within the bounds: answered.
    expect(await count(terms.slice(0, 10).join(' OR '))).toBeGreaterThan(0);
  });
});
