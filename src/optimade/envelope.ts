/** The JSON:API documents of OPTIMADE answers: `meta`, `links`, errors, and the base URLs they name. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { mountOf } from '../http/mount.js';
import { requestUrl } from '../http/url.js';
import { quarryVersion } from '../util/version.js';
import { OptimadeError } from './errors.js';
import { PREFIX } from './properties.js';

export const API_VERSION = '1.3.0';
/** The versioned base URLs served, all of API_VERSION. */
export const SERVED_VERSION_PATHS = ['v1', 'v1.3', 'v1.3.0'];
export const MEDIA_TYPE = 'application/vnd.api+json';

const QUARRY_VERSION = quarryVersion();

/**
 * Where the request is, from its own URL: `origin` (scheme, host and any public path: the server's, where the
 * index is), `mount` (the path before `/optimade`: empty for the first source, `/<source>` for a source by its
 * path), `base` (the versioned base URL the request is under) and `representation` (the part of the URL after
 * it, with the query).
 */
export interface Place {
  origin: string;
  mount: string;
  base: string;
  representation: string;
}

export function placeOf(ctx: AppContext, request: FastifyRequest): Place {
  const url = requestUrl(request, ctx.origin);
  // A source by its path has its mount at the end of the URL root (src/http/mount.ts); the index is the server's.
  const sourceMount = mountOf(request.raw)?.prefix ?? '';
  const root = url.urlRoot.replace(/\/$/, '');
  const origin = sourceMount !== '' && root.endsWith(sourceMount) ? root.slice(0, -sourceMount.length) : root;
  const m = /^(.*?)\/optimade(\/index)?(\/v1(?:\.3(?:\.0)?)?)?(\/.*)?$/.exec(url.rawPath.replace(/\/+$/, ''));
  const mount = `${sourceMount}${m?.[1] ?? ''}`;
  const base = `${origin}${mount}/optimade${m?.[2] ?? ''}${m?.[3] ?? ''}`;
  const rest = m?.[4] ?? '/';
  return { origin, mount, base, representation: `${rest}${url.rawQuery === '' ? '' : `?${url.rawQuery}`}` };
}

/** The versioned base URL of the source mounted at `mount`, and of the index. */
export const sourceBase = (place: Place, mount = place.mount) => `${place.origin}${mount}/optimade/v1`;
export const indexBase = (place: Place) => `${place.origin}/optimade/index/v1`;

export interface MetaExtra {
  dataReturned?: number;
  dataAvailable?: number;
  more?: boolean;
  warnings?: string[];
}

export function meta(place: Place, extra: MetaExtra = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    api_version: API_VERSION,
    query: { representation: place.representation },
    more_data_available: extra.more ?? false,
    time_stamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    provider: {
      name: 'Quarry',
      description: 'AiiDA provenance data (archives and profiles) served by Quarry',
      prefix: PREFIX,
    },
    implementation: { name: 'Quarry', version: QUARRY_VERSION },
    // The OpenAPI schema of the answers, at the address the specification's own example gives.
    schema: `https://schemas.optimade.org/openapi/v1/optimade${/\/optimade\/index(\/|$)/.test(place.base) ? '_index' : ''}.json`,
  };
  if (extra.dataReturned !== undefined) out.data_returned = extra.dataReturned;
  if (extra.dataAvailable !== undefined) out.data_available = extra.dataAvailable;
  if (extra.warnings && extra.warnings.length > 0)
    out.warnings = extra.warnings.map((detail) => ({ type: 'warning', detail }));
  return out;
}

/** Sent as JSON.stringify writes it: OPTIMADE numbers are JSON numbers, with nothing of AiiDA's text to keep. */
export function sendDocument(reply: FastifyReply, document: Record<string, unknown>) {
  return reply.code(200).type(MEDIA_TYPE).send(JSON.stringify(document));
}

/** An error in the specification's form: `errors` with status, title, detail and the parameter at fault. */
export function sendError(reply: FastifyReply, place: Place, error: OptimadeError) {
  const entry: Record<string, unknown> = {
    status: String(error.status),
    title: error.title,
    detail: error.message,
  };
  if (error.parameter !== undefined) entry.source = { parameter: error.parameter };
  const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
  if (typeof retryAfter === 'number') reply.header('Retry-After', String(retryAfter));
  return reply
    .code(error.status)
    .type(MEDIA_TYPE)
    .send({ errors: [entry], meta: meta(place) });
}
