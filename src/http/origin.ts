/**
 * The scheme and host written into answers (`url`, `url_root`, `Link`). They come from the request, so they are
 * checked before anything is written with them: a Host header is an RFC 3986 host with an optional port, and
 * `X-Forwarded-*` are read only when the operator says a proxy sets them (`--trust-proxy`). `--public-url`
 * replaces all of it with a fixed base.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { mountOf } from './mount.js';

/** What decides the base URL of answers; built once from the options. */
export interface OriginOptions {
  /** `scheme://host[:port][/path]` without a trailing slash, or undefined to take it from each request. */
  publicBase?: string;
  /** Whether `X-Forwarded-Proto` and `X-Forwarded-Host` are read (set only behind a proxy that sets them). */
  trustProxy: boolean;
}

/**
 * RFC 3986 `host [":" port]`, the grammar HTTP gives the Host header: a reg-name (unreserved, sub-delims,
 * percent-encoded; IPv4 addresses are reg-names syntactically) or a bracketed IP literal. None of its characters
 * (no `"`, `<`, `>`, `\`, space or control character) can break out of a JSON string or a Link header's `<...>`.
 * The two branches of the reg-name cannot both match a character (`%` is in neither class): matching is linear.
 */
const HOST =
  /^(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+|\[(?:([0-9A-Fa-f:.]+)|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\])(?::[0-9]{1,5})?$/;

/**
 * Clients send the same Host again and again; the last one found valid is compared instead of matched. One
 * entry per kind of header, so that a proxy's forwarded host does not push out the Host it sends beside it.
 */
let validHost = 'localhost';
let validForwardedHost = 'localhost';

export function isValidHost(host: string): boolean {
  const match = HOST.exec(host);
  // The class of the IPv6 branch lets `[:::1.2]` through; the address parser has the last word.
  return match !== null && (match[1] === undefined || isIPv6(match[1]));
}

/** A header Node may keep as a list; it joins repeated unknown headers with `, ` itself. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The last entry of a header a proxy appends to (`a, b` -> `b`): the one the proxy next to us wrote. */
function lastEntry(value: string): string {
  const comma = value.lastIndexOf(',');
  return (comma === -1 ? value : value.slice(comma + 1)).trim();
}

/**
 * Why the request's Host (and, behind a trusted proxy, its forwarded scheme and host) cannot be written into
 * an answer, or undefined when they can. Called on every request: the common case is one string comparison.
 */
export function originProblem(request: FastifyRequest, options: OriginOptions): string | undefined {
  const headers = request.raw.headers;
  const host = headers.host;
  if (host !== validHost) {
    if (host === undefined) {
      // HTTP/1.0 may leave the Host out (old health checks do); the socket's own address stands in.
      if (request.raw.httpVersion !== '1.0') return 'The request has no Host header; HTTP/1.1 requires one';
    } else if (isValidHost(host)) validHost = host;
    else return 'The Host header is not a host name or address with an optional port (RFC 3986)';
  }
  if (!options.trustProxy || options.publicBase !== undefined) return undefined;
  const proto = header(headers, 'x-forwarded-proto');
  if (proto !== undefined && !/^https?$/i.test(lastEntry(proto))) {
    return 'X-Forwarded-Proto is neither http nor https';
  }
  const forwarded = header(headers, 'x-forwarded-host');
  if (forwarded !== undefined && forwarded !== validForwardedHost) {
    if (!isValidHost(lastEntry(forwarded))) {
      return 'X-Forwarded-Host is not a host name or address with an optional port (RFC 3986)';
    }
    validForwardedHost = forwarded;
  }
  return undefined;
}

/**
 * `scheme://host[:port][/path]` of this request's answers, without a trailing slash; the headers were checked.
 * A request to a source by its path (`/<name>/api/v4/...`) has `/<name>` at the end (src/http/mount.ts).
 */
export function baseUrl(request: FastifyRequest, options: OriginOptions): string {
  const mount = mountOf(request.raw)?.prefix ?? '';
  if (options.publicBase !== undefined) return `${options.publicBase}${mount}`;
  const headers = request.raw.headers;
  let scheme = request.protocol;
  let host = headers.host;
  if (options.trustProxy) {
    const proto = header(headers, 'x-forwarded-proto');
    if (proto !== undefined) scheme = lastEntry(proto).toLowerCase() as 'http' | 'https';
    const forwarded = header(headers, 'x-forwarded-host');
    if (forwarded !== undefined) host = lastEntry(forwarded);
  }
  return `${scheme}://${host ?? socketHost(request)}${mount}`;
}

function socketHost(request: FastifyRequest): string {
  const { localAddress, localPort } = request.raw.socket;
  if (localAddress === undefined) return 'localhost';
  return `${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}`;
}

/**
 * `--public-url`: an absolute http(s) URL whose scheme, host, port and path replace those of the request in
 * answers. The path is the prefix a proxy strips before it forwards, so answers say
 * `https://example.org/quarry/api/v4/...` for requests Quarry receives as `/api/v4/...`.
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--public-url ${JSON.stringify(text)} is not an absolute URL (https://example.org/path)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`--public-url must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error('--public-url takes a scheme, host, port and path only (no query, fragment or user)');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
