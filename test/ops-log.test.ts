/**
 * Request ids and the request log over real HTTP: one line per answered request with `--log` (JSON or
 * pretty), nothing without it; X-Request-Id taken from a sane client value or made, and returned on every
 * answer, early errors included.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFailureSink } from '../src/http/failures.js';
import { listeningOn, smallArchive } from './helpers.js';
import { rawExchange } from './support/raw-http.js';

let archive: string;
beforeAll(async () => {
  archive = await smallArchive(200, 6);
});

/** A destination that keeps what is written to it, line by line. */
function collector() {
  const stream = new PassThrough();
  const lines: string[] = [];
  let rest = '';
  stream.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  return { stream, lines };
}

async function get(port: number, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, id: res.headers.get('x-request-id'), text: await res.text() };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('request ids', () => {
  let served: Awaited<ReturnType<typeof listeningOn>>;
  beforeAll(async () => {
    served = await listeningOn(archive);
  });
  afterAll(() => served.close());

  it('are made for each answer, unique, and a sane client value is kept', async () => {
    const a = await get(served.port, '/api/v4/nodes/?limit=1');
    const b = await get(served.port, '/api/v4/nodes/?limit=1');
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(b.id).not.toBe(a.id);
    const given = '3f1c2a9e-0b7d-4e4f-9c1a-5d2e8f6a7b10';
    expect((await get(served.port, '/api/v4/nodes/?limit=1', { 'X-Request-Id': given })).id).toBe(given);
  });

  it('replace a client value that is too long or has unsafe characters', async () => {
    for (const bad of ['x'.repeat(129), 'a b', 'a"b', '<script>']) {
      const { id } = await get(served.port, '/api/v4/', { 'X-Request-Id': bad });
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    }
  });

  it('are returned on errors too: 404, 400 for a bad Host, a path the router refuses, bytes Node refuses', async () => {
    expect((await get(served.port, '/nowhere', { 'X-Request-Id': 'r-404' })).id).toBe('r-404');
    const badPath = await rawExchange(served.port, [
      'GET /api/v4/nodes/%zz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: r-bad-path\r\nConnection: close\r\n\r\n',
    ]);
    expect(badPath.status).toBe(400);
    expect(badPath.headers['x-request-id']).toBe('r-bad-path');
    const badHost = await rawExchange(served.port, [
      'GET /api/v4/ HTTP/1.1\r\nHost: a b\r\nX-Request-Id: r-host\r\nConnection: close\r\n\r\n',
    ]);
    expect(badHost.status).toBe(400);
    expect(badHost.headers['x-request-id']).toBe('r-host');
    const badBytes = await rawExchange(served.port, ['GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']);
    expect(badBytes.status).toBe(400);
    expect(badBytes.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });
});

describe('the request log', () => {
  it('writes nothing per request without --log; a 5xx is still written, once, with its id', async () => {
    const out = collector();
    const failures: string[] = [];
    const restore = setFailureSink((line) => failures.push(line));
    const served = await listeningOn(archive, { logDestination: out.stream, queryTimeoutMs: 1 });
    try {
      await get(served.port, '/api/v4/');
      const failed = await get(served.port, '/api/v4/nodes/?limit=400&attributes=true', {
        'X-Request-Id': 'r-failed',
      });
      expect(failed.status).toBe(503);
      await settle();
      expect(out.lines).toEqual([]);
      expect(failures).toHaveLength(1);
      expect(JSON.parse(failures[0]!)).toMatchObject({ reqId: 'r-failed', status: 503 });
    } finally {
      restore();
      await served.close();
    }
  });

  it('writes one JSON line per request with --log', async () => {
    const out = collector();
    const served = await listeningOn(archive, {
      logger: true,
      logFormat: 'json',
      logDestination: out.stream,
    });
    try {
      const page = await get(served.port, '/api/v4/nodes/page/1/?perpage=2', { 'X-Request-Id': 'r-1' });
      await get(served.port, `/api/v4/nodes/?limit=1&profile=${served.backend.name}`);
      await get(served.port, '/nowhere');
      await settle();
      const lines = out.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatchObject({
        level: 'info',
        reqId: 'r-1',
        method: 'GET',
        url: '/api/v4/nodes/page/1/?perpage=2',
        kind: 'node_page',
        status: 200,
        bytes: Buffer.byteLength(page.text),
        profile: served.backend.name,
      });
      expect(Date.parse(lines[0].time)).toBeGreaterThan(Date.now() - 60_000);
      expect(lines[0].ms).toBeGreaterThan(0);
      expect(lines[1]).toMatchObject({ kind: 'node_list', profile: served.backend.name });
      expect(lines[2]).toMatchObject({ kind: 'not_found', status: 404 });
      // Fastify's own lines per request stay off.
      expect(out.lines.some((l) => /incoming request|request completed/.test(l))).toBe(false);
    } finally {
      await served.close();
    }
  });

  it('writes a line for people with --log-format pretty', async () => {
    const out = collector();
    const served = await listeningOn(archive, {
      logger: true,
      logFormat: 'pretty',
      logDestination: out.stream,
    });
    try {
      await get(served.port, '/api/v4/nodes/?limit=1', { 'X-Request-Id': 'r-pretty' });
      await settle();
      const line = out.lines.find((l) => l.includes('r-pretty'));
      expect(line).toMatch(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v4\/nodes\/\?limit=1 200 \d+ B [\d.]+ ms \(node_list, .*, r-pretty\)$/,
      );
    } finally {
      await served.close();
    }
  });
});
