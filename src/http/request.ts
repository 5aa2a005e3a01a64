/** Per-request parsing shared by the routes: URL pieces, query string, and the storage it addresses. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lease } from '../sources/catalog.js';
import { parseQueryString } from '../querystring/index.js';
import type { ParsedQueryString } from '../querystring/types.js';
import { HttpError } from '../rest/errors.js';
import { budgeted } from '../storage/budgeted.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { KeptMap } from '../util/kept-map.js';
import { clientOf } from './client.js';
import type { AppContext } from './context.js';
import { isApiRoute } from './endpoints.js';
import { mountOf, removedSourceOf } from './mount.js';
import { requestUrl, type RequestUrl } from './url.js';

export interface ParsedRequest {
  url: RequestUrl;
  qs: ParsedQueryString;
  backend: StorageBackend;
}

/**
 * `heavy`: the request runs the client's own query (a posted QueryBuilder dictionary), which goes to the lane
 * that never takes every connection; `inThread`: its statements may run in the serving thread first (see
 * QueryBudget). The time limit counts from here, for all of the request's queries.
 */
export function parseRequest(
  ctx: AppContext,
  request: FastifyRequest,
  heavy = false,
  inThread = true,
): ParsedRequest {
  const url = requestUrl(request, ctx.origin);
  const qs = parsedQuery(url.rawQuery);
  const budget = takePrepared(request, heavy, inThread) ?? {
    deadline: deadlines.get(request) ?? Date.now() + requestTimeLimitMs(ctx, request),
    heavy,
    client: clientOf(request, ctx.origin.trustProxy),
    inThread,
  };
  return { url, qs, backend: budgeted(selectBackend(ctx, request, qs.profile), budget) };
}

/** A budget made before the handler, whose lane the handler says when it takes it. */
type PreparedBudget = { -readonly [K in keyof QueryBudget]: QueryBudget[K] };

const prepared = new WeakMap<FastifyRequest, PreparedBudget>();

/**
 * The budget of a request's queries, made before its handler runs (src/ops/etag.ts asks the data version with
 * it): a PostgreSQL source runs all of a budget's statements on one server, so the version a tag names is that
 * of the server the answer comes from (`steady`: the one OPTIMADE's answers come from, see QueryBudget). The
 * handler's parseRequest takes it, once: a run again after a lost server gets a new budget, free to go to
 * another server.
 */
export function preparedBudget(ctx: AppContext, request: FastifyRequest, steady = false): QueryBudget {
  const budget: PreparedBudget = {
    deadline: deadlines.get(request) ?? Date.now() + requestTimeLimitMs(ctx, request),
    client: clientOf(request, ctx.origin.trustProxy),
  };
  if (steady) budget.steady = true;
  prepared.set(request, budget);
  return budget;
}

/**
 * The prepared budget, given the handler's lane (a posted query's is the heavy one, on a live profile as on an
 * archive): the same object, so that the handler's statements stay on the server its data version came from.
 */
function takePrepared(request: FastifyRequest, heavy: boolean, inThread: boolean): QueryBudget | undefined {
  const budget = prepared.get(request);
  if (budget === undefined) return undefined;
  prepared.delete(request);
  budget.heavy = heavy;
  budget.inThread = inThread;
  return budget;
}

const deadlines = new WeakMap<FastifyRequest, number>();

/**
 * How long the request's work may take: its source's own limit (a sources file's `query_timeout`) where it has
 * one, longer or shorter than the server's, else the server's. A source's storage stops each statement at the
 * same limit, so the two never disagree.
 */
export function requestTimeLimitMs(ctx: AppContext, request: FastifyRequest): number {
  const name = leases.get(request)?.name;
  const own = name === undefined ? undefined : ctx.catalog.spec(name)?.queryTimeout;
  return own === undefined ? ctx.queryTimeoutMs : own * 1000;
}

const untaggable = new WeakSet<FastifyRequest>();

/**
 * The request's answer may hold other data than the version its tag was made for: its handler ran again on
 * another server than the one its first run chose (see retry.ts), or it gives a summary computed before the
 * latest change (see rest/summary-cache.ts). Such an answer gets no ETag.
 */
export function markUntaggable(request: FastifyRequest) {
  untaggable.add(request);
}

export function isUntaggable(request: FastifyRequest): boolean {
  return untaggable.has(request);
}

/** The time limit counts from now for every run of the request's handler (see retry.ts). */
export function startDeadline(ctx: AppContext, request: FastifyRequest) {
  if (!deadlines.has(request)) deadlines.set(request, Date.now() + requestTimeLimitMs(ctx, request));
}

/**
 * Clients repeat a few query strings (a listing's paging and filters), so each is parsed once. The kept
 * result is frozen: it is shared by every request that sends the same string.
 */
const QUERIES_KEPT = 1_000;
const queries = new KeptMap<ParsedQueryString>(QUERIES_KEPT);

export function parsedQuery(raw: string): ParsedQueryString {
  return queries.get(raw) ?? queries.set(raw, deepFreeze(parseQueryString(raw)));
}

const leases = new WeakMap<FastifyRequest, Lease>();

/**
 * The storage a request addresses: the source its path names (`/<name>/...`), else the one `?profile=NAME`
 * names, else the first source. Every route (the v4 API, OPTIMADE, the explorer's) gets its data from here.
 * The source was opened for the request before its handler ran (registerSourceLeases) and stays open until
 * its answer is sent.
 */
export function requestSource(ctx: AppContext, request: FastifyRequest): StorageBackend {
  return selectBackend(ctx, request, profileOf(request));
}

/** The name of the source a request addresses (for logs and metrics), or undefined when it names none. */
export function requestSourceName(ctx: AppContext, request: FastifyRequest): string | undefined {
  return mountOf(request.raw)?.name ?? leases.get(request)?.name;
}

/** The source of a request that names none: the first, or for OPTIMADE the one chosen for it. */
function defaultSource(ctx: AppContext, request: FastifyRequest): string | undefined {
  const route = request.routeOptions.url ?? '';
  return route === '/optimade' || route.startsWith('/optimade/')
    ? ctx.catalog.optimadeFirst
    : ctx.catalog.first;
}

/** `?profile=NAME` at the plain prefix; a path's source wins over it. */
export function selectBackend(ctx: AppContext, request: FastifyRequest, profile: unknown): StorageBackend {
  const lease = leases.get(request);
  const mount = mountOf(request.raw);
  if (lease !== undefined && (profile === undefined || lease.name === String(profile))) return lease.backend;
  if (mount !== undefined && profile !== undefined && ctx.catalog.has(String(profile))) {
    throw new HttpError(
      400,
      `this path serves the source "${mount.name}" and ?profile= names "${String(profile)}"; ask /${String(profile)}${ctx.prefix}/... or leave ?profile= out`,
    );
  }
  const name = profile === undefined ? defaultSource(ctx, request) : String(profile);
  const open = ctx.backends.find((b) => b.name === name);
  if (open !== undefined) return open;
  if (mount === undefined && (profile === undefined || ctx.catalog.has(name as string))) {
    // A route that was not expected to read a source (registerSourceLeases) asked for one that is closed.
    throw Object.assign(new Error(`the source "${name ?? ''}" is not open; ask again`), {
      status: 503,
      retryAfter: 1,
    });
  }
  throw unknownProfile(ctx, profile);
}

function unknownProfile(ctx: AppContext, profile: unknown): HttpError {
  const names = ctx.catalog.names().join(', ');
  // The reference answers a refused profile with X-Total-Count: 0, like an empty result.
  return new HttpError(
    400,
    `unknown profile ${JSON.stringify(String(profile))}; this server serves: ${names}`,
    {},
    { 'X-Total-Count': '0', 'Access-Control-Expose-Headers': 'X-Total-Count' },
  );
}

/** `profile` of the query string, without parsing the rest (a bad query string is the handler's to refuse). */
function profileOf(request: FastifyRequest): string | undefined {
  const raw = request.raw.url ?? '';
  const q = raw.indexOf('?');
  if (q === -1 || !raw.includes('profile=', q)) return undefined;
  try {
    const profile = parsedQuery(raw.slice(q + 1)).profile;
    return profile === undefined ? undefined : String(profile);
  } catch {
    return undefined;
  }
}

/**
 * Before any other hook: a request to a removed source is answered 404 naming it; one whose route reads a
 * source (the API, OPTIMADE) takes a lease on it, opening it if it is closed (the first request to a source
 * waits for that), and gives the lease back once its answer is sent or its connection is gone.
 */
export function registerSourceLeases(app: FastifyInstance, ctx: AppContext) {
  const readsSource = (route: string | undefined): boolean =>
    isApiRoute(ctx.prefix, route) ||
    route === '/optimade' ||
    // The database over every source leases each source it reads itself (src/optimade/all-listing.ts).
    (route?.startsWith('/optimade/') === true && !route.startsWith('/optimade/all/')) ||
    route === '/export' ||
    route?.startsWith('/export/') === true;
  app.addHook('onRequest', (request, reply, done) => {
    const removed = removedSourceOf(request.raw);
    if (removed !== undefined) {
      reply.code(404).send({
        message: `the source "${removed}" is no longer served (it was removed); GET /sources/ lists the sources served`,
      });
      return;
    }
    if (!readsSource(request.routeOptions.url)) return done();
    const profile = profileOf(request);
    // Refused on every path of the API, those that read no source too (the root listing, /server/endpoints/).
    if (
      profile !== undefined &&
      !ctx.catalog.has(profile) &&
      isApiRoute(ctx.prefix, request.routeOptions.url)
    )
      return done(unknownProfile(ctx, profile));
    const name = mountOf(request.raw)?.name ?? profile ?? defaultSource(ctx, request);
    if (name === undefined) {
      reply.code(404).send({ message: 'no source is served yet; GET /sources/ lists the sources served' });
      return;
    }
    const hold = (lease: Lease | undefined) => {
      if (lease === undefined) return;
      leases.set(request, lease);
      reply.raw.once('close', lease.release);
    };
    const ready = ctx.catalog.tryAcquire(name);
    if (ready !== undefined || !ctx.catalog.has(name)) {
      hold(ready);
      return done();
    }
    ctx.catalog.acquire(name).then(
      (lease) => {
        hold(lease);
        done();
      },
      (error: Error) => done(error),
    );
  });
  // An answer sent without the response's 'close' (an injected request in tests) still gives its lease back.
  app.addHook('onResponse', (request, _reply, done) => {
    leases.get(request)?.release();
    done();
  });
}
