import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, smallArchive } from './helpers.js';

describe('HTTP surface on a generated archive', () => {
  let ctx: Awaited<ReturnType<typeof appOn>>;
  const get = (url: string) => ctx.app.inject({ method: 'GET', url });
  beforeAll(async () => {
    ctx = await appOn(await smallArchive(500, 3));
  });
  afterAll(async () => ctx.close());

  it('wraps answers in the v4 envelope with CORS and X-Total-Count', async () => {
    const r = await get('/api/v4/nodes/?limit=3&orderby=-ctime');
    expect(r.statusCode).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['x-total-count']).toBe('500');
    const body = r.json();
    expect(Object.keys(body)).toEqual([
      'data',
      'id',
      'method',
      'path',
      'query_string',
      'resource_type',
      'url',
      'url_root',
    ]);
    expect(body.data.nodes).toHaveLength(3);
    const times = body.data.nodes.map((n: { ctime: string }) => Date.parse(n.ctime));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(body.data.nodes[0].ctime).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  });

  it('answers the links of a node named by its complete UUID, none, or 404 for an unknown node', async () => {
    const calc = (
      await get('/api/v4/nodes/?limit=1&node_type="process.calculation.calcjob.CalcJobNode."')
    ).json().data.nodes[0];
    const incoming = (await get(`/api/v4/nodes/${calc.uuid}/links/incoming/`)).json().data.incoming;
    expect(incoming.length).toBeGreaterThan(0);
    // The same links found through the node's pk first (a UUID prefix cannot be joined on directly).
    const byPrefix = (await get(`/api/v4/nodes/${calc.uuid.slice(0, 13)}/links/incoming/`)).json().data
      .incoming;
    expect(incoming).toEqual(byPrefix);
    const lonely = (await get('/api/v4/nodes/?limit=1&orderby=id')).json().data.nodes[0];
    const none = await get(`/api/v4/nodes/${lonely.uuid}/links/incoming/`);
    expect(none.statusCode).toBe(200);
    expect(none.json().data.incoming).toEqual([]);
    const unknown = await get('/api/v4/nodes/00000000-0000-4000-8000-000000000000/links/outgoing/');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/no object's id starts with/);
  });

  it('answers each node of one request shape with its own record (full UUID, prefix, pk of a user)', async () => {
    const nodes = (await get('/api/v4/nodes/?limit=6&orderby=id')).json().data.nodes;
    for (const n of nodes) {
      for (const id of [n.uuid, n.uuid.slice(0, 13), n.uuid.slice(0, 8)]) {
        const answer = (await get(`/api/v4/nodes/${id}/`)).json();
        expect(answer.data.nodes.map((m: { uuid: string }) => m.uuid)).toEqual([n.uuid]);
      }
      const linked = (await get(`/api/v4/nodes/${n.uuid}/links/outgoing/?orderby=id`)).json().data.outgoing;
      const byPrefix = (await get(`/api/v4/nodes/${n.uuid.slice(0, 13)}/links/outgoing/?orderby=id`)).json()
        .data.outgoing;
      expect(byPrefix).toEqual(linked);
    }
    const users = (await get('/api/v4/users/')).json().data.users;
    for (const u of users) {
      expect((await get(`/api/v4/users/${u.id}/`)).json().data.users).toEqual([u]);
    }
  });

  it('serves both slash forms, HEAD and OPTIONS on every route', async () => {
    expect((await get('/api/v4/groups')).statusCode).toBe(200);
    expect((await get('/api/v4/groups/')).statusCode).toBe(200);
    const head = await ctx.app.inject({ method: 'HEAD', url: '/api/v4/users/' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-total-count']).toBe('2');
    const options = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/api/v4/querybuilder/',
      headers: {
        origin: 'http://x',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(options.statusCode).toBe(200);
    expect(options.headers.allow).toContain('POST');
    expect(options.headers['access-control-allow-headers']).toBe('content-type');
    expect(options.headers['access-control-allow-origin']).toBe('*');
  });

  it('pages with correct Link URLs', async () => {
    const r = await get('/api/v4/nodes/page/2/?perpage=10&full_type="data.core.int.Int.|"');
    expect(r.statusCode).toBe(200);
    expect(r.headers.link).toMatch(
      /^<http:\/\/localhost:80\/api\/v4\/nodes\/page\/1\?perpage=10&full_type=%22data\.core\.int\.Int\.%7C%22>; rel=prev, /,
    );
    expect(
      r.json().data.nodes.every((n: { node_type: string }) => n.node_type === 'data.core.int.Int.'),
    ).toBe(true);
  });

  it('answers unknown paths, wrong methods and bad input with a message, never a 500', async () => {
    const unknown = await get('/api/v4/nowhere/');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().available_endpoints).toHaveLength(46);
    const post = await ctx.app.inject({ method: 'POST', url: '/api/v4/nodes/', payload: {} });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    for (const url of [
      '/api/v4/nodes/?orderby=nope',
      '/api/v4/nodes/?limit=abc',
      '/api/v4/nodes/?limit=401',
      '/api/v4/nodes/page/0/',
      '/api/v4/nodes/?id=in=3',
      '/api/v4/nodes/?full_type="a|b|c"',
      '/api/v4/nodes/ffffffff/',
      '/api/v4/users/99999/',
      '/api/v4/nodes/?profile=elsewhere',
    ]) {
      const r = await get(url);
      expect([400, 404], url).toContain(r.statusCode);
      expect(typeof r.json().message, url).toBe('string');
      expect(r.headers['access-control-allow-origin']).toBe('*');
    }
    const qb = await ctx.app.inject({ method: 'POST', url: '/api/v4/querybuilder/', payload: '{"path": [' });
    expect(qb.statusCode).toBe(400);
  });

  it('streams repository files with their length, and keeps paths inside the node', async () => {
    const calc = (
      await get('/api/v4/nodes/?node_type="process.calculation.calcjob.CalcJobNode."&limit=1')
    ).json().data.nodes[0];
    const list = await get(`/api/v4/nodes/${calc.uuid}/repo/list/`);
    expect(list.json().data.repo_list).toContainEqual({ name: 'aiida.in', type: 'FILE' });
    const file = await get(`/api/v4/nodes/${calc.uuid}/repo/contents/?filename="aiida.in"`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/octet-stream');
    expect(file.headers['content-disposition']).toBe('attachment; filename="aiida.in"');
    expect(Number(file.headers['content-length'])).toBe(file.rawPayload.length);
    expect(file.body).toContain('&CONTROL');
    for (const bad of ['../aiida.in', '/etc/passwd', 'a\\b']) {
      const r = await get(
        `/api/v4/nodes/${calc.uuid}/repo/contents/?filename=${encodeURIComponent(JSON.stringify(bad))}`,
      );
      expect(r.statusCode, bad).toBe(400);
    }
    expect((await get(`/api/v4/nodes/${calc.uuid}/repo/contents/?filename="nope.txt"`)).statusCode).toBe(404);
  });

  it('answers 200 concurrent requests, all successfully', async () => {
    const urls = ['/api/v4/nodes/?limit=20', '/api/v4/users/', '/api/v4/groups/', '/api/v4/nodes/page/3/'];
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => get(urls[i % urls.length]!)));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
  });
});

describe('--no-posting', () => {
  it('lists 45 endpoints and does not run queries', async () => {
    const ctx = await appOn(await smallArchive(100, 1), { posting: false });
    const root = (await ctx.app.inject({ method: 'GET', url: '/api/v4/' })).json();
    expect(root.data.available_endpoints).toHaveLength(45);
    const post = await ctx.app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: { path: [] },
    });
    expect(post.statusCode).toBe(404);
    await ctx.close();
  });
});
