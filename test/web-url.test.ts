/** The explorer's URL scheme and list state (web/src/url.ts): what a shared link means, and what it asks the API. */
import { describe, expect, it } from 'vitest';
import {
  labelledPartRequest,
  appHref,
  classifySearch,
  isUuid,
  listRequest,
  listStateFrom,
  listStateParams,
  parseRoute,
  routePath,
} from '../web/src/url.js';

const uuid = '5533b067-13f2-4606-bbef-26d1aa60edc7';

describe('routes', () => {
  it('reads every path of the scheme, with or without a trailing slash', () => {
    expect(parseRoute('/')).toEqual({ name: 'home' });
    expect(parseRoute('/nodes')).toEqual({ name: 'nodes' });
    expect(parseRoute('/nodes/')).toEqual({ name: 'nodes' });
    expect(parseRoute(`/nodes/${uuid}`)).toEqual({ name: 'node', uuid });
    expect(parseRoute('/groups')).toEqual({ name: 'groups' });
    expect(parseRoute(`/groups/${uuid}/`)).toEqual({ name: 'group', uuid });
    expect(parseRoute('/computers')).toEqual({ name: 'computers' });
    expect(parseRoute(`/computers/${uuid}`)).toEqual({ name: 'computer', uuid });
    expect(parseRoute('/users')).toEqual({ name: 'users' });
  });

  it('calls anything else unknown, never a view of something else', () => {
    expect(parseRoute('/users/3').name).toBe('unknown');
    expect(parseRoute(`/nodes/${uuid}/extra`).name).toBe('unknown');
    expect(parseRoute('/api/v4/nodes').name).toBe('unknown');
    expect(parseRoute('/%E0%A4%A').name).toBe('unknown');
  });

  it('takes off the path the app is published under', () => {
    expect(parseRoute(`/quarry/nodes/${uuid}`, '/quarry')).toEqual({ name: 'node', uuid });
    expect(parseRoute('/quarry', '/quarry')).toEqual({ name: 'home' });
    expect(parseRoute('/quarryx/nodes', '/quarry').name).toBe('unknown');
  });

  it('writes paths that read back as the same route', () => {
    for (const route of [
      { name: 'home' },
      { name: 'nodes' },
      { name: 'node', uuid },
      { name: 'group', uuid },
      { name: 'computer', uuid },
      { name: 'users' },
    ] as const) {
      expect(parseRoute(routePath(route))).toEqual(route);
    }
  });
});

describe('links', () => {
  it('keep the profile and the api in every link, and add the view own parameters', () => {
    const current = new URLSearchParams('profile=rich&api=http%3A%2F%2Fh%3A5000%2Fapi%2Fv4&page=3&label=x');
    const href = appHref('/nodes', { type: 'data.core.%|' }, current);
    const url = new URL(href, 'http://x');
    expect(url.pathname).toBe('/nodes');
    expect(url.searchParams.get('profile')).toBe('rich');
    expect(url.searchParams.get('api')).toBe('http://h:5000/api/v4');
    expect(url.searchParams.get('type')).toBe('data.core.%|');
    // The state of the view left does not follow.
    expect(url.searchParams.has('page')).toBe(false);
    expect(url.searchParams.has('label')).toBe(false);
  });

  it('let a link choose another profile, or none, and start at the published root', () => {
    const current = new URLSearchParams('profile=rich');
    expect(appHref('/', { profile: 'other' }, current)).toBe('/?profile=other');
    expect(appHref('/', { profile: undefined }, current)).toBe('/');
    expect(appHref('/users', {}, new URLSearchParams(), '/quarry')).toBe('/quarry/users');
  });
});

describe('node list state', () => {
  it('has defaults a plain /nodes shows, and leaves them out of its links', () => {
    const state = listStateFrom(new URLSearchParams(''));
    // No order asked for: newest first, the labelled nodes before the unlabelled.
    expect(state).toEqual({ page: 1, perpage: 20, sort: '-ctime', labelledFirst: true });
    expect(listStateFrom(new URLSearchParams('sort=-ctime')).labelledFirst).toBeUndefined();
    expect(labelledPartRequest(state, true, 40, 20)).toEqual({
      path: '/nodes/',
      query: 'limit=20&offset=40&orderby=-ctime,id&label!=%22%22',
    });
    expect(
      labelledPartRequest({ ...state, type: 'data.core.array.bands.%|' }, false, 0, 5, [3, 4]).query,
    ).toBe(
      `limit=5&offset=0&orderby=-ctime,id&full_type=${encodeURIComponent('"data.core.array.bands.%|"')}&id=in=3,4&label=%22%22`,
    );
    expect(Object.values(listStateParams(state)).filter((v) => v !== undefined)).toEqual([]);
  });

  it('reads back what it writes', () => {
    const state = {
      page: 4,
      perpage: 50,
      sort: 'label',
      type: 'data.core.structure.StructureData.|',
      from: '2019-03-01',
      to: '2019-03-31',
      user: 22,
      label: 'Si "diamond"',
      uuid: '5533b0',
    };
    const params = new URLSearchParams(
      Object.entries(listStateParams(state)).filter((e): e is [string, string] => e[1] !== undefined),
    );
    expect(listStateFrom(params)).toEqual(state);
  });

  it('ignores values that are no state (bad page, unknown column, no date) instead of asking the API for them', () => {
    const state = listStateFrom(
      new URLSearchParams('page=-2&perpage=abc&sort=secret&from=yesterday&user=x&uuid=zz'),
    );
    expect(state).toEqual({ page: 1, perpage: 20, sort: '-ctime', labelledFirst: true });
    expect(listStateFrom(new URLSearchParams('perpage=100000')).perpage).toBe(400);
  });

  it('asks for one page, ordered with the pk breaking ties, with every filter', () => {
    const request = listRequest({
      page: 2,
      perpage: 50,
      sort: '-ctime',
      type: 'data.core.%|',
      from: '2019-03-01',
      to: '2019-03-31',
      user: 22,
      label: '50%_Si',
      uuid: 'abc',
    });
    expect(request.path).toBe('/nodes/page/2/');
    const query = decodeURIComponent(request.query);
    expect(query).toBe(
      'perpage=50&orderby=-ctime,id&full_type="data.core.%|"&ctime>=2019-03-01T00:00:00' +
        '&ctime<2019-04-01T00:00:00&user_id=22&label=ilike="%50Si%"&uuid=like="abc%"',
    );
    expect(listRequest({ page: 1, perpage: 20, sort: 'id' }).query).toBe('perpage=20&orderby=id');
  });
});

describe('search box', () => {
  it('tells a pk, the start of a UUID and label text apart', () => {
    expect(classifySearch(' 3806 ')).toEqual({ kind: 'pk', pk: 3806 });
    expect(classifySearch('5533B0')).toEqual({ kind: 'uuid', prefix: '5533b0' });
    expect(classifySearch(uuid)).toEqual({ kind: 'uuid', prefix: uuid });
    expect(classifySearch('Si diamond')).toEqual({ kind: 'label', text: 'Si diamond' });
    expect(classifySearch('abc')).toEqual({ kind: 'label', text: 'abc' });
    expect(classifySearch('   ')).toBeUndefined();
    expect(isUuid(uuid)).toBe(true);
    expect(isUuid('5533b0')).toBe(false);
  });
});
