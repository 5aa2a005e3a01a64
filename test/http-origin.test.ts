/**
 * The scheme and host written into answers: a Host header that is not a host is refused, `--public-url`
 * replaces them, and `X-Forwarded-*` count only behind a trusted proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidHost, parsePublicUrl } from '../src/http/origin.js';
import { appOn, listeningOn, smallArchive } from './helpers.js';
import { rawExchange, rawRequest } from './support/raw-http.js';

describe('isValidHost', () => {
  it('takes RFC 3986 hosts with an optional port', () => {
    for (const host of [
      'localhost',
      'localhost:5000',
      'example.org',
      'a-b.example.org:443',
      '127.0.0.1:8080',
      '[::1]',
      '[::1]:5000',
      '[2001:db8::7]:80',
      '[::ffff:192.0.2.1]',
      'xn--bcher-kva.example',
      'my_host',
      '%65xample.org',
      '[v1.fe80::a+en1]',
    ]) {
      expect(isValidHost(host), host).toBe(true);
    }
  });

  it('refuses anything else', () => {
    for (const host of [
      '',
      'evil.example"><x>',
      'a b',
      'example.org/path',
      'example.org:port',
      'example.org:123456',
      '[::1',
      '[:::1.2]',
      '[fe80::1%25eth0]',
      'user@example.org',
      'example.org?x',
      'example.org#x',
      '%zz.example',
      'a\\b',
      '<script>',
      'ex\u00e4mple.org',
    ]) {
      expect(isValidHost(host), host).toBe(false);
    }
  });
});

describe('parsePublicUrl', () => {
  it('keeps scheme, host, port and path, without a trailing slash', () => {
    expect(parsePublicUrl('https://Example.org/quarry/')).toBe('https://example.org/quarry');
    expect(parsePublicUrl('https://example.org')).toBe('https://example.org');
    expect(parsePublicUrl('http://example.org:8080/a/b')).toBe('http://example.org:8080/a/b');
    expect(parsePublicUrl('https://example.org:443/')).toBe('https://example.org');
  });

  it('refuses what is not a base URL', () => {
    expect(() => parsePublicUrl('example.org')).toThrow(/absolute URL/);
    expect(() => parsePublicUrl('ftp://example.org')).toThrow(/http/);
    expect(() => parsePublicUrl('https://example.org/?a=1')).toThrow(/no query/);
    expect(() => parsePublicUrl('https://u:p@example.org/')).toThrow(/no query/);
  });
});

let archive: string;
beforeAll(async () => {
  archive = await smallArchive(100, 4);
});

/** A /page/ request: its answer carries the host in `url`, `url_root` and the Link header. */
const PAGE = '/api/v4/nodes/page/2/?perpage=5';

describe('the Host header, over HTTP', () => {
  let ctx: Awaited<ReturnType<typeof listeningOn>>;
  let port: number;
  beforeAll(async () => {
    ctx = await listeningOn(archive);
    port = ctx.port;
  });
  afterAll(async () => ctx.close());

  it('refuses a Host that is not a host, before writing it anywhere', async () => {
    for (const host of ['evil.example"><x>', 'a b', 'example.org/x', '']) {
      const answer = await rawRequest(port, 'GET', PAGE, [`Host: ${host}`]);
      expect(answer.status, host).toBe(400);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.headers.link).toBeUndefined();
      expect(JSON.parse(answer.body).message).toMatch(/Host/);
      expect(answer.body).not.toContain('<x>');
    }
    const unknownPath = await rawRequest(port, 'GET', '/api/v4/nowhere/', ['Host: <x>']);
    expect(unknownPath.status).toBe(400);
  });

  it('writes a valid Host into url, url_root and Link', async () => {
    for (const host of ['example.org:8080', '[::1]:5000', '127.0.0.1']) {
      const answer = await rawRequest(port, 'GET', PAGE, [`Host: ${host}`]);
      expect(answer.status, host).toBe(200);
      const body = JSON.parse(answer.body);
      expect(body.url_root).toBe(`http://${host}/`);
      expect(body.url).toBe(`http://${host}/api/v4/nodes/page/2/?perpage=5`);
      expect(answer.headers.link).toContain(`<http://${host}/api/v4/nodes/page/1?perpage=5>; rel=prev`);
    }
  });

  it('requires a Host of HTTP/1.1; an HTTP/1.0 request without one gets the address it reached', async () => {
    const missing = await rawExchange(port, ['GET /api/v4/server/ HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).message).toMatch(/no Host/);
    const old = await rawExchange(port, ['GET /api/v4/server/ HTTP/1.0\r\n\r\n']);
    expect(old.status).toBe(200);
    expect(JSON.parse(old.body).url_root).toBe(`http://127.0.0.1:${port}/`);
  });

  it('ignores X-Forwarded-* without --trust-proxy', async () => {
    const answer = await rawRequest(port, 'GET', PAGE, [
      'Host: example.org',
      'X-Forwarded-Proto: https',
      'X-Forwarded-Host: <evil>',
    ]);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).url_root).toBe('http://example.org/');
  });
});

describe('--public-url and --trust-proxy', () => {
  const opened: Awaited<ReturnType<typeof appOn>>[] = [];
  afterAll(async () => Promise.all(opened.map((c) => c.close())));
  async function app(options: { publicUrl?: string; trustProxy?: boolean }) {
    const ctx = await appOn(archive, options);
    opened.push(ctx);
    return (url: string, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method: 'GET', url, headers: { host: 'internal:5000', ...headers } });
  }

  it('writes the public URL, path prefix included, whatever the request says', async () => {
    const get = await app({ publicUrl: 'https://data.example.org/quarry/', trustProxy: true });
    const answer = await get(PAGE, { 'x-forwarded-host': 'other.example', 'x-forwarded-proto': 'http' });
    const body = answer.json();
    expect(body.url_root).toBe('https://data.example.org/quarry/');
    expect(body.url).toBe('https://data.example.org/quarry/api/v4/nodes/page/2/?perpage=5');
    // The path is Quarry's own, as the reference reports it under a mount point.
    expect(body.path).toBe('/api/v4/nodes/page/2/');
    expect(answer.headers.link).toMatch(
      /^<https:\/\/data\.example\.org\/quarry\/api\/v4\/nodes\/page\/1\?perpage=5>; rel=prev, /,
    );
    expect((await get('/api/v4/server/')).json().url).toBe('https://data.example.org/quarry/api/v4/server/');
  });

  it('takes scheme and host from the last X-Forwarded-* entry behind a trusted proxy, after checking them', async () => {
    const get = await app({ trustProxy: true });
    const answer = await get(PAGE, {
      'x-forwarded-proto': 'http, HTTPS',
      'x-forwarded-host': 'spoofed.example, public.example.org:8443',
    });
    expect(answer.json().url_root).toBe('https://public.example.org:8443/');
    expect(answer.headers.link).toContain('<https://public.example.org:8443/api/v4/nodes/page/1?perpage=5>');
    expect((await get(PAGE)).json().url_root).toBe('http://internal:5000/');
    for (const headers of [
      { 'x-forwarded-host': 'evil.example"><x>' } as Record<string, string>,
      { 'x-forwarded-host': 'a, b c' },
      { 'x-forwarded-proto': 'javascript' },
    ]) {
      const refused = await get(PAGE, headers);
      expect(refused.statusCode, JSON.stringify(headers)).toBe(400);
      expect(refused.json().message).toMatch(/X-Forwarded/);
    }
  });

  it('refuses a --public-url that is not a base URL when the app is built', async () => {
    await expect(appOn(archive, { publicUrl: 'not a url' })).rejects.toThrow(/absolute URL/);
  });
});
