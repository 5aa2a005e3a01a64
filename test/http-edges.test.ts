/**
 * What arrives before Quarry's routes, over real HTTP: paths the router cannot read, bytes the parser refuses,
 * methods no endpoint takes, bodies in any Content-Type, and clients too slow to finish a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningOn, smallArchive } from './helpers.js';
import { rawExchange, rawRequest, type RawAnswer } from './support/raw-http.js';

/** Quarry's shape for every error: a JSON `{message}` a browser client may read. */
function expectOurs(answer: RawAnswer, status: number) {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['access-control-allow-origin']).toBe('*');
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(20);
  return body as { message: string; available_endpoints?: string[] };
}

let archive: string;
beforeAll(async () => {
  archive = await smallArchive(100, 2);
});

describe('errors before the routes, over HTTP', () => {
  let ctx: Awaited<ReturnType<typeof listeningOn>>;
  let port: number;
  beforeAll(async () => {
    ctx = await listeningOn(archive);
    port = ctx.port;
  });
  afterAll(async () => ctx.close());
  const get = (target: string, headers?: string[]) => rawRequest(port, 'GET', target, headers);

  it('answers a path that is not percent-encoding with a message saying so', async () => {
    for (const target of ['/api/v4/nodes/%zz/', '/api/v4/nodes/%E0%A4%A/', '/api/v4/%/']) {
      expect(expectOurs(await get(target), 400).message).toMatch(/percent-encoding.*%25/);
    }
  });

  it('reads an over-long id as any other id that names nothing: 404', async () => {
    const answer = await get(`/api/v4/nodes/${'a'.repeat(500)}/`);
    expect(expectOurs(answer, 404).message).toMatch(/not found/);
    expect(expectOurs(await get(`/api/v4/users/${'9'.repeat(200)}/`), 404)).toBeTruthy();
  });

  it("answers what Node's parser refuses in the same shape, and closes", async () => {
    expect(expectOurs(await rawRequest(port, 'FOO', '/api/v4/'), 501).message).toMatch(/method/);
    expect(expectOurs(await get(`/api/v4/${'a'.repeat(20_000)}/`), 431).message).toMatch(/too large/);
    const junk = await rawExchange(port, ['GET /api/v4/ HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n']);
    expectOurs(junk, 400);
    const connect = await rawRequest(port, 'CONNECT', 'example.org:443', ['Host: example.org:443']);
    expect(expectOurs(connect, 501).message).toMatch(/not a proxy/);
  });

  it('answers 405 with Allow for every other method where the path exists, 404 where it does not', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'DELETE', 'PUT', 'PATCH', 'MKCOL', 'LOCK', 'SEARCH']) {
      const answer = await rawRequest(port, method, '/api/v4/nodes/0123abcd/links/incoming/page/2');
      expect(expectOurs(answer, 405).message, method).toContain(method);
      expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS');
      const qb = await rawRequest(port, method, '/api/v4/querybuilder/');
      expect(qb.headers.allow, method).toBe('GET, POST, HEAD, OPTIONS');
      expect(
        expectOurs(await rawRequest(port, method, '/api/v4/nowhere/'), 404).available_endpoints,
      ).toHaveLength(46);
    }
    // A refused method's body is not read as a request of its own, nor parsed.
    const withBody = await rawExchange(port, [
      'DELETE /api/v4/nodes/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\ngarbage',
    ]);
    expectOurs(withBody, 405);
  });

  it('reads a QueryBuilder body as JSON whatever its Content-Type, as the reference does', async () => {
    const body = JSON.stringify({ path: [{ entity_type: 'data.core.int.Int.', tag: 'n' }], limit: 2 });
    const answers: string[] = [];
    for (const type of [
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'json',
      undefined,
    ]) {
      const headers = [
        'Host: x',
        `Content-Length: ${body.length}`,
        ...(type ? [`Content-Type: ${type}`] : []),
      ];
      const answer = await rawExchange(port, [
        `POST /api/v4/querybuilder/ HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`,
      ]);
      expect(answer.status, `${type}: ${answer.body}`).toBe(200);
      answers.push(JSON.stringify(JSON.parse(answer.body).data));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!).n).toHaveLength(2);
  });

  it('answers an empty body, one that is not an object and one that is not JSON with 400 and why', async () => {
    const post = (body: string, type = 'application/json') =>
      rawExchange(port, [
        `POST /api/v4/querybuilder/ HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ]);
    for (const type of ['application/json', 'text/plain']) {
      expect(expectOurs(await post('', type), 400).message).toMatch(/empty/);
      expect(expectOurs(await post('  \n', type), 400).message).toMatch(/empty/);
      expect(expectOurs(await post('[1, 2]', type), 400).message).toMatch(/JSON object.*array/);
      expect(expectOurs(await post('"path"', type), 400).message).toMatch(/JSON object.*string/);
      expect(expectOurs(await post('{"path": [', type), 400).message).toMatch(/not valid JSON/);
    }
    const none = await rawExchange(port, [
      'POST /api/v4/querybuilder/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    ]);
    expect(expectOurs(none, 400).message).toMatch(/empty/);
  });
});

describe('slow clients', () => {
  let ctx: Awaited<ReturnType<typeof listeningOn>>;
  let port: number;
  beforeAll(async () => {
    // The limits of a public server, scaled down to fit a test.
    const timeouts = { headersMs: 600, requestMs: 1_200, checkMs: 100, keepAliveMs: 500, silenceMs: 3_000 };
    ctx = await listeningOn(archive, { timeouts });
    port = ctx.port;
  });
  afterAll(async () => ctx.close());

  it('closes a connection whose headers trickle in, with a 408 in our shape', async () => {
    const parts = [
      'GET /api/v4/ HTTP/1.1\r\n',
      ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`),
    ];
    const answer = await rawExchange(port, parts, 100);
    expect(expectOurs(answer, 408).message).toMatch(/in time/);
    expect(answer.closedAfterMs).toBeLessThan(1_500);
  });

  it('closes a connection whose body trickles in', async () => {
    const head = 'POST /api/v4/querybuilder/ HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n';
    const answer = await rawExchange(port, [head, ...Array.from({ length: 50 }, () => ' ')], 100);
    expect(answer.closedAfterMs).toBeLessThan(2_500);
    expectOurs(answer, 408);
  });

  it('closes a connection that never says anything, and one left idle after an answer', async () => {
    const silent = await rawExchange(port, []);
    expect(silent.closedAfterMs).toBeLessThan(1_500);
    expectOurs(silent, 408);
    const idle = await rawExchange(port, ['GET /api/v4/server/ HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(idle.status).toBe(200);
    expect(idle.closedAfterMs).toBeLessThan(2_500);
  });
});
