/** The explorer's API client (web/src/api.ts) against a real Quarry server, and against servers that fail. */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApi } from '../web/src/api.js';
import { listRequest } from '../web/src/url.js';
import { listeningOn, smallArchive } from './helpers.js';

let served: Awaited<ReturnType<typeof listeningOn>>;
let base: string;

beforeAll(async () => {
  served = await listeningOn(await smallArchive(300, 11));
  base = `http://127.0.0.1:${served.port}/api/v4`;
});
afterAll(() => served?.close());

interface Nodes {
  nodes: { uuid: string; label: string; id: number }[];
}

describe('the API client', () => {
  it("gives an answer's data and its X-Total-Count", async () => {
    const api = createApi({ base });
    const answer = await api.get<Nodes>('/nodes/page/2/', 'perpage=7&orderby=id');
    expect(answer.data.nodes).toHaveLength(7);
    expect(answer.totalCount).toBe(300);
    expect((answer.raw as { path: string }).path).toBe('/api/v4/nodes/page/2/');
  });

  it('asks for the profile it was made for, in requests and links', async () => {
    const api = createApi({ base: `${base}/`, profile: served.backend.name });
    expect(api.url('/nodes/', 'limit=1')).toBe(
      `${base}/nodes/?limit=1&profile=${encodeURIComponent(`"${served.backend.name}"`)}`,
    );
    expect((await api.get<Nodes>('/nodes/', 'limit=1')).data.nodes).toHaveLength(1);
    const other = createApi({ base, profile: 'no-such-source' });
    const error = await other.get('/nodes/', 'limit=1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBeGreaterThanOrEqual(400);
    expect((error as ApiError).message).toContain('no-such-source');
  });

  it('posts querybuilder dictionaries', async () => {
    const api = createApi({ base });
    const answer = await api.query<{ n: { id: number }[] }>({
      path: [{ entity_type: 'node.Node.', orm_base: 'node', tag: 'n' }],
      project: { n: ['id'] },
      limit: 3,
    });
    expect(answer.data.n).toHaveLength(3);
  });

  it("says 'not found' with the server's words for an unknown node", async () => {
    const error = (await createApi({ base })
      .get('/nodes/00000000-0000-4000-8000-000000000000/')
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(404);
    expect(error.kind).toBe('not-found');
    expect(error.message).toMatch(/^404: ./);
  });

  it('says the server cannot be reached when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const error = (await createApi({ base: `http://127.0.0.1:${port}/api/v4` })
      .get('/nodes/')
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBeUndefined();
    expect(error.kind).toBe('down');
    expect(error.message).toContain('could not be reached');
  });

  describe('against a server that never answers', () => {
    let silent: Server;
    let silentBase: string;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      silent = createServer((socket) => void sockets.push(socket));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      silentBase = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/api/v4`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    });

    it('gives up at its time limit and says so', async () => {
      const started = Date.now();
      const error = (await createApi({ base: silentBase, timeoutMs: 300 })
        .get('/nodes/')
        .catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.kind).toBe('timeout');
      expect(error.message).toContain('time limit');
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('stops when the view that asked goes away, without calling it a failure of the server', async () => {
      const controller = new AbortController();
      const pending = createApi({ base: silentBase, timeoutMs: 10_000 }).get('/nodes/', undefined, {
        signal: controller.signal,
      });
      controller.abort();
      const error = await pending.catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ApiError);
      expect((error as Error).name).toBe('AbortError');
    });
  });

  it("calls a query stopped at the server's time limit a time limit, and a database down a server failure", async () => {
    const answering = (message: string) =>
      createApi({
        base,
        fetch: async () => new Response(JSON.stringify({ message }), { status: 503 }),
      });
    const limit = (await answering('The query took longer than its time limit of 30 s; narrow it.')
      .get('/nodes/')
      .catch((e: unknown) => e)) as ApiError;
    expect([limit.kind, limit.status]).toEqual(['timeout', 503]);
    expect(limit.message).toContain('time limit of 30 s');
    const down = (await answering('The database cannot be reached.')
      .get('/nodes/')
      .catch((e: unknown) => e)) as ApiError;
    expect([down.kind, down.status]).toEqual(['server', 503]);
  });

  it("says an answer that is not the v4 API's is not", async () => {
    const api = createApi({
      base: `http://127.0.0.1:${served.port}`,
      fetch: async () => new Response('<html>'),
    });
    const error = (await api.get('/nodes/').catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe('server');
    expect(error.message).toContain('not a v4 API answer');
  });
});

describe('the node list request', () => {
  it('is understood by the server, filters with odd characters included', async () => {
    const api = createApi({ base });
    const { nodes } = (await api.get<Nodes>('/nodes/', 'limit=400&orderby=id')).data;
    const labelled = nodes.find((n) => n.label.length > 3)!;
    const word = labelled.label.slice(1, 4);
    const request = listRequest({ page: 1, perpage: 20, sort: 'id', label: word });
    const answer = await api.get<Nodes>(request.path, request.query);
    expect(answer.totalCount).toBe(
      nodes.filter((n) => n.label.toLowerCase().includes(word.toLowerCase())).length,
    );
    for (const text of ['a&b', 'x"y', '50%', 'ü é', '#1', 'a+b']) {
      const odd = listRequest({ page: 1, perpage: 20, sort: '-ctime', label: text, type: 'data.%|' });
      const found = await api.get<Nodes>(odd.path, odd.query);
      expect(found.totalCount).toBe(0);
    }
  });
});
