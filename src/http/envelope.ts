/** The v4 answer envelope and its headers, as the reference writes them. */
import type { PageLinks } from '../rest/pagination.js';
import type { RequestUrl } from './url.js';

/**
 * X-Total-Count, and on `/page/` requests a Link header with first/prev/next/last. The reference builds the
 * links by cutting `page[/N]` off the request URL; it writes `http:/host`, we write a correct `http://host`.
 */
export function listHeaders(totalCount: number, rawUrl?: string, pages?: PageLinks): Record<string, string> {
  const headers: Record<string, string> = { 'X-Total-Count': String(totalCount) };
  const expose = ['X-Total-Count'];
  if (pages && rawUrl) {
    const link = pageLinks(rawUrl, pages);
    if (link !== undefined) {
      headers.Link = link;
      expose.push('Link');
    }
  }
  headers['Access-Control-Expose-Headers'] = expose.join(',');
  return headers;
}

function pageLinks(rawUrl: string, pages: PageLinks): string | undefined {
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = q === -1 ? '' : rawUrl.slice(q);
  const elems = path.split('/').filter(Boolean);
  if (elems.pop() !== 'page' && elems.pop() !== 'page') return undefined;
  const [scheme, ...rest] = elems;
  const base = `${scheme}//${rest.join('/')}`;
  const order: (keyof PageLinks)[] = ['prev', 'next', 'first', 'last'];
  return order
    .filter((rel) => pages[rel] !== null)
    .map((rel) => `<${base}/page/${pages[rel]}${query}>; rel=${rel}, `)
    .join('');
}

/** The envelope of resource answers; keys in the reference's (sorted) order. */
export function envelope(u: RequestUrl, resourceType: string, data: unknown, id: unknown) {
  return {
    data,
    id: id ?? null,
    method: u.method,
    path: u.path,
    query_string: u.queryString,
    resource_type: resourceType,
    url: u.url,
    url_root: u.urlRoot,
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The envelope as JSON text around `data` serialised once beforehand (summaries of tens of kB asked for again
 * and again), with the Content-Type Fastify gives serialised objects.
 */
export function envelopeJson(u: RequestUrl, resourceType: string, dataJson: string, id: unknown) {
  const empty = JSON.stringify(envelope(u, resourceType, null, id));
  return { type: JSON_TYPE, body: `{"data":${dataJson}${empty.slice('{"data":null'.length)}` };
}

/** The envelope of `/`, `/server/` and `/server/endpoints/`, which has no `id`. */
export function infoEnvelope(u: RequestUrl, data: unknown) {
  return {
    data,
    method: u.method,
    path: u.path,
    query_string: u.queryString,
    resource_type: 'Info',
    url: u.url,
    url_root: u.urlRoot,
  };
}
