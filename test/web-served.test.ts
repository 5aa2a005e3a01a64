/** Where the explorer finds its API, routes and index of sources from the address it was opened at. */
import { describe, expect, it } from 'vitest';
import { rootOf, servedAt } from '../web/src/served.js';
import { parseRoute } from '../web/src/url.js';

describe('the root an address implies', () => {
  it.each([
    ['/', ''],
    ['/nodes', ''],
    ['/nodes/', ''],
    ['/nodes/0a1b', ''],
    ['/users', ''],
    ['/mc3d/', '/mc3d'],
    ['/mc3d', '/mc3d'],
    ['/mc3d/groups/x-y', '/mc3d'],
    ['/quarry/mc3d/computers', '/quarry/mc3d'],
    ['/search', ''],
    ['/mc3d/search', '/mc3d'],
  ])('%s → %j', (path, root) => {
    expect(rootOf(path)).toBe(root);
    expect(parseRoute(path, root).name).not.toBe('unknown');
  });
});

describe('servedAt', () => {
  it("keeps the server's settings where the address agrees with them", () => {
    expect(servedAt('/quarry/nodes/x', { root: '/quarry', api: '/quarry/api/v4' })).toEqual({
      root: '/quarry',
      serverRoot: '/quarry',
      api: '/quarry/api/v4',
      index: ['/quarry/sources/', '/sources/'],
      docs: '/quarry/docs',
    });
    expect(servedAt('/', { root: '', api: '/api/v4' })).toEqual({
      root: '',
      serverRoot: '',
      api: '/api/v4',
      index: ['/sources/'],
      docs: '/docs',
    });
  });

  it("a page opened under a source's path finds that source's API, whatever the page's settings say", () => {
    expect(servedAt('/mc3d/nodes/x', { root: '', api: '/api/v4' })).toMatchObject({
      root: '/mc3d',
      api: '/mc3d/api/v4',
    });
    expect(servedAt('/mc3d/', {})).toMatchObject({ root: '/mc3d', api: '/mc3d/api/v4' });
    expect(servedAt('/portal/mc3d/', { root: '/portal', api: '/portal/api/v4' })).toMatchObject({
      root: '/portal/mc3d',
      serverRoot: '/portal',
      api: '/portal/mc3d/api/v4',
    });
  });

  it('an absolute API URL and an index the server names are used as they are', () => {
    expect(servedAt('/', { api: 'https://example.org/api/v4', index: '/all/sources/' })).toEqual({
      root: '',
      serverRoot: '',
      api: 'https://example.org/api/v4',
      index: ['/all/sources/'],
      docs: '/docs',
    });
  });
});
