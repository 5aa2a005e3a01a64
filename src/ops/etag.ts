/**
 * HTTP validators and freshness for the API's answers: a strong `ETag` on every 200 answer to GET and HEAD,
 * `304 Not Modified` for a matching `If-None-Match` before the handler runs any query, and `Cache-Control`.
 *
 * A tag is not a digest of the answer (that would cost the render a 304 is meant to save): it is a digest of
 * everything the answer's bytes are a function of. That is the data (an archive's identity, which is the same
 * on every machine serving the same file and never changes; a live profile's data version, taken before the
 * handler's queries, so a tag never claims newer data than the answer holds), the request URL with its query
 * string, the base URL written into `url`/`url_root`/`Link` (so two Hosts never share a tag), and the settings
 * and version of Quarry that shape an answer. A compressed answer is another representation: its tag carries
 * the coding (`"…-br"`), and If-None-Match compares weakly, as RFC 9110 says it must for GET.
 */
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { isApiRoute } from '../http/endpoints.js';
import { baseUrl } from '../http/origin.js';
import { parsedQuery, preparedBudget, requestSource, selectBackend, isUntaggable } from '../http/request.js';
import { budgeted } from '../storage/budgeted.js';
import { countConditional } from './metrics.js';
import type { StorageBackend } from '../storage/types.js';
import { quarryVersion } from '../util/version.js';

/** Bump when answers change shape without a new Quarry version (it is part of every tag). */
const TAG_SCHEME = '1';
const QUARRY_VERSION = quarryVersion();

/** Characters of base64url kept from the digest: 192 bits, more than any collision needs. */
const TAG_CHARS = 32;

export interface CachingOptions {
  /** `max-age` of archive answers, in seconds; 0 makes them `no-cache` (revalidated on every use). */
  maxAgeSeconds: number;
  /** Answers may be compressed, so a 304 says that the representation depends on Accept-Encoding. */
  vary: boolean;
}

/** What the tag of one request is made of; `data` is an archive identity or a live data version. */
export interface TagInputs {
  settings: string;
  data: string;
  base: string;
  url: string;
}

/** The quoted strong tag of an identity-coded answer. */
export function entityTag(inputs: TagInputs): string {
  // One call, no Hash object: about 1 µs less a request than createHash's update and digest.
  const digest = hash(
    'sha256',
    `${inputs.settings}\0${inputs.data}\0${inputs.base}\0${inputs.url}`,
    'base64url',
  );
  return `"${digest.slice(0, TAG_CHARS)}"`;
}

/** The tag of the same answer sent with a content coding: another representation, another strong tag. */
export function codedTag(tag: string, coding: string | undefined): string {
  return coding === undefined || coding === 'identity' ? tag : `${tag.slice(0, -1)}-${coding}"`;
}

/**
 * Which of the client's tags (If-None-Match, a list, each maybe weak) is a representation of the answer
 * `tag` would be, compared weakly: the tag itself or one of its coded forms. The tag found is what a 304
 * repeats, since it names the representation the client holds. `*` is not honoured (it would need to know
 * the resource exists, which takes the handler's queries): such a request gets its 200.
 */
export function matchingTag(ifNoneMatch: string | undefined, tag: string): string | undefined {
  if (ifNoneMatch === undefined) return undefined;
  const core = tag.slice(1, -1);
  let at = ifNoneMatch.indexOf(core);
  while (at !== -1) {
    // The digest must be a whole tag: preceded by its quote, followed by its quote or a coding suffix.
    const close = ifNoneMatch.indexOf('"', at + core.length);
    const listed = ifNoneMatch.slice(at - 1, close + 1);
    if (ifNoneMatch[at - 1] === '"' && close !== -1 && /^"[\w-]+"$/.test(listed)) {
      const suffix = listed.slice(core.length + 1, -1);
      if (suffix === '' || suffix === '-br' || suffix === '-gzip') return listed;
    }
    at = ifNoneMatch.indexOf(core, at + 1);
  }
  return undefined;
}

/** Cache-Control of an answer: archives never change, live profiles must be revalidated on every use. */
export function cacheControl(live: boolean, maxAgeSeconds: number): string {
  return live || maxAgeSeconds <= 0 ? 'no-cache' : `public, max-age=${maxAgeSeconds}`;
}

/** The answer's bytes are a function of these settings too (page sizes, POST offered, prefix). */
function settingsOf(ctx: AppContext): string {
  return JSON.stringify([
    QUARRY_VERSION,
    TAG_SCHEME,
    ctx.prefix,
    ctx.posting,
    ctx.limitDefault,
    ctx.perpageDefault,
  ]);
}

/**
 * An archive's identity (constant), a live profile's data version, or nothing: not cacheable. The version is
 * asked with the budget the handler's queries will use, so on PostgreSQL it is that of the server the answer
 * comes from (a lagging replica's answers never carry the primary's version). OPTIMADE's answers all come
 * from one server (`steady`), whose version their tags name.
 */
function dataOf(ctx: AppContext, request: FastifyRequest, backend: StorageBackend, steady = false) {
  if (backend.identity !== undefined) return `a:${backend.identity}`;
  if (backend.dataVersion === undefined) return undefined;
  const view = budgeted(backend, preparedBudget(ctx, request, steady));
  return view.dataVersion!().then((v) => `v:${v}`);
}

interface Pending {
  tag: string;
  cacheControl: string;
  /** Sent as a weak tag (`W/"…"`): OPTIMADE answers, whose meta.time_stamp is the time each was made. */
  weak: boolean;
  /**
   * A posted query's answer: named like a GET's (its body and the query bounds are part of the name), so that it
   * is kept the same way (src/ops/kept-gets.ts), but sent with no tag and no Cache-Control, as the reference
   * sends it: HTTP caches do not keep answers of POST.
   */
  posted?: boolean;
}

/**
 * A source's OPTIMADE endpoints (under `/optimade/v1/`, `/v1.3/` and `/v1.3.0/`, also under a source's path):
 * their answers are a function of the same inputs as the v4 API's, except `meta.time_stamp`, the time the answer was made. Their
 * tag is weak, as RFC 9110 has it for representations equivalent but not identical: a client that revalidates
 * keeps the answer it holds, time stamp and all. The index (`/optimade/index/`) lists the portal's catalog,
 * which changes without a data version, and has no tag.
 */
const isOptimadeSourceRoute = (route: string | undefined) =>
  route !== undefined && /^\/optimade\/v1(\.3(\.0)?)?\//.test(route);

declare module 'fastify' {
  interface FastifyRequest {
    /** The tag and Cache-Control its 200 answer gets, when the request is one a cache may keep. */
    quarryCaching: Pending | undefined;
  }
}

/**
 * The conditional-request hooks. Compression (src/ops/compression.ts) must be registered before, so that
 * the tag written on an answer names the coding it was sent with.
 */
export function registerCaching(app: FastifyInstance, ctx: AppContext, options: CachingOptions) {
  const settings = settingsOf(ctx);
  const archiveControl = cacheControl(false, options.maxAgeSeconds);
  const liveControl = cacheControl(true, options.maxAgeSeconds);
  app.decorateRequest('quarryCaching', undefined);

  // After routing, before the handler: a request whose answer the client holds runs no query at all.
  const postedRoute = `${ctx.prefix}/querybuilder`;
  const bounds = JSON.stringify([ctx.queryLimits, ctx.maxRows]);
  app.addHook('preHandler', (request, reply, done) => {
    const method = request.method;
    if (method === 'POST' && request.routeOptions.url === postedRoute && ctx.posting)
      return namePosted(request, done);
    if ((method !== 'GET' && method !== 'HEAD') || request.is404) return done();
    // The explorer's files, the docs page and the health and metrics answers have caching of their own.
    const optimade = isOptimadeSourceRoute(request.routeOptions.url);
    if (!optimade && !isApiRoute(ctx.prefix, request.routeOptions.url)) return done();
    let backend: StorageBackend;
    try {
      backend = optimade
        ? requestSource(ctx, request)
        : selectBackend(ctx, request, parsedQuery(rawQuery(request)).profile);
    } catch {
      // A query string or profile the handler refuses: its 400 gets no tag.
      return done();
    }
    const data = dataOf(ctx, request, backend, optimade);
    if (data === undefined) return done();
    const live = backend.identity === undefined;
    const decide = (version: string) => {
      const raw = request.raw.url ?? request.url;
      const tag = entityTag({ settings, data: version, base: baseUrl(request, ctx.origin), url: raw });
      const pending = { tag, cacheControl: live ? liveControl : archiveControl, weak: optimade };
      const asked = request.headers['if-none-match'];
      const held = matchingTag(asked, tag);
      if (asked !== undefined) countConditional(held !== undefined);
      if (held === undefined) {
        request.quarryCaching = pending;
        return done();
      }
      // The CORS header was set when the request arrived; Vary says what else chose the representation.
      reply.code(304).headers({ ETag: written(pending, held), 'Cache-Control': pending.cacheControl });
      if (options.vary) reply.header('Vary', 'Accept-Encoding');
      reply.send();
    };
    if (typeof data === 'string') return decide(data);
    // A data version that cannot be read (the database is down): no tag; the handler says what is wrong.
    data.then(decide, () => done());
  });

  /** A posted query's name: its data version, URL, body text and bounds, as a GET's tag names its answer. */
  function namePosted(request: FastifyRequest, done: () => void) {
    const text = typeof request.body === 'string' ? request.body : undefined;
    let backend: StorageBackend;
    try {
      if (text === undefined) return done();
      backend = selectBackend(ctx, request, parsedQuery(rawQuery(request)).profile);
    } catch {
      return done();
    }
    const data = dataOf(ctx, request, backend);
    if (data === undefined) return done();
    const decide = (version: string) => {
      const url = `POST\0${request.raw.url ?? request.url}\0${bounds}\0${text}`;
      const tag = entityTag({ settings, data: version, base: baseUrl(request, ctx.origin), url });
      request.quarryCaching = { tag, cacheControl: '', weak: false, posted: true };
      done();
    };
    if (typeof data === 'string') return decide(data);
    data.then(decide, () => done());
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const pending = request.quarryCaching;
    // A request run again after its server was lost, or a summary older than the data: not of the tag's version.
    if (pending !== undefined && !pending.posted && reply.statusCode === 200) {
      if (isUntaggable(request)) {
        reply.header('Cache-Control', 'no-cache');
      } else {
        const coding = reply.getHeader('content-encoding');
        const tag = codedTag(pending.tag, typeof coding === 'string' ? coding : undefined);
        reply.header('ETag', written(pending, tag));
        reply.header('Cache-Control', pending.cacheControl);
      }
    }
    done(null, payload);
  });
}

const written = (pending: Pending, tag: string) => (pending.weak ? `W/${tag}` : tag);

function rawQuery(request: FastifyRequest): string {
  const raw = request.raw.url ?? request.url;
  const q = raw.indexOf('?');
  return q === -1 ? '' : raw.slice(q + 1);
}
