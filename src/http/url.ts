/** URL pieces as the reference reports them in every answer's envelope. */
import type { FastifyRequest } from 'fastify';
import { unquote } from '../querystring/index.js';
import { baseUrl, type OriginOptions } from './origin.js';

/** Percent-encode what a URL may not carry raw (quotes, `|`, spaces), as Werkzeug writes request URLs. */
export function quoteUrlPart(text: string, safe: string): string {
  if (allSafe(safe).test(text)) return text;
  let out = '';
  for (const ch of text) {
    if (/[A-Za-z0-9_.\-~]/.test(ch) || safe.includes(ch)) out += ch;
    else
      out += encodeURIComponent(ch).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      );
  }
  return out;
}

const safeTexts = new Map<string, RegExp>();

/** Matches a text that has nothing to quote (most URLs): unreserved characters and `safe` ones only. */
function allSafe(safe: string): RegExp {
  let re = safeTexts.get(safe);
  if (!re) {
    re = new RegExp(`^[A-Za-z0-9_.\\-~${safe.replace(/[\\\]^-]/g, '\\$&')}]*$`);
    safeTexts.set(safe, re);
  }
  return re;
}

export interface RequestUrl {
  method: string;
  /** Raw path, still percent-encoded. */
  rawPath: string;
  /** Raw query string without `?`, still percent-encoded. */
  rawQuery: string;
  path: string;
  queryString: string;
  url: string;
  urlRoot: string;
  /** The full URL, percent-encoded, for Link headers. */
  rawUrl: string;
}

export function requestUrl(request: FastifyRequest, origin: OriginOptions): RequestUrl {
  const raw = request.raw.url ?? request.url;
  const q = raw.indexOf('?');
  const rawPath = q === -1 ? raw : raw.slice(0, q);
  const rawQuery = q === -1 ? '' : raw.slice(q + 1);
  const base = baseUrl(request, origin);
  const urlRoot = `${base}/`;
  const rawUrl = `${base}${quoteUrlPart(unquote(rawPath), '/')}${q === -1 ? '' : `?${quoteUrlPart(rawQuery, ":&%=+$!*'(),")}`}`;
  return {
    method: request.method,
    rawPath,
    rawQuery,
    path: unquote(rawPath),
    queryString: unquote(rawQuery),
    url: unquote(rawUrl),
    urlRoot,
    rawUrl,
  };
}
