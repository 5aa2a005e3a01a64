/** Per-request parsing shared by the routes: URL pieces, query string, and the storage it addresses. */
import type { FastifyRequest } from 'fastify';
import { parseQueryString } from '../querystring/index.js';
import type { ParsedQueryString } from '../querystring/types.js';
import { HttpError } from '../rest/errors.js';
import { budgeted } from '../storage/budgeted.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { KeptMap } from '../util/kept-map.js';
import { clientOf } from './client.js';
import type { AppContext } from './context.js';
import { requestUrl, type RequestUrl } from './url.js';

export interface ParsedRequest {
  url: RequestUrl;
  qs: ParsedQueryString;
  backend: StorageBackend;
}

/**
 * `heavy`: the request runs the client's own query (a posted QueryBuilder dictionary), which goes to the lane
 * that never takes every connection. The time limit counts from here, for all of the request's queries.
 */
export function parseRequest(ctx: AppContext, request: FastifyRequest, heavy = false): ParsedRequest {
  const url = requestUrl(request, ctx.origin);
  const qs = parsedQuery(url.rawQuery);
  const budget = takePrepared(request) ?? {
    deadline: deadlines.get(request) ?? Date.now() + ctx.queryTimeoutMs,
    heavy,
    client: clientOf(request, ctx.origin.trustProxy),
  };
  return { url, qs, backend: budgeted(selectBackend(ctx, qs.profile), budget) };
}

const prepared = new WeakMap<FastifyRequest, QueryBudget>();

/**
 * The budget of a GET's queries, made before its handler runs (src/ops/etag.ts asks the data version with it):
 * a PostgreSQL source runs all of a budget's statements on one server, so the version a tag names is that of
 * the server the answer comes from. The handler's parseRequest takes it, once: a run again after a lost server
 * gets a new budget, free to go to another server.
 */
export function preparedBudget(ctx: AppContext, request: FastifyRequest): QueryBudget {
  const budget = {
    deadline: deadlines.get(request) ?? Date.now() + ctx.queryTimeoutMs,
    client: clientOf(request, ctx.origin.trustProxy),
  };
  prepared.set(request, budget);
  return budget;
}

function takePrepared(request: FastifyRequest): QueryBudget | undefined {
  const budget = prepared.get(request);
  if (budget !== undefined) prepared.delete(request);
  return budget;
}

const deadlines = new WeakMap<FastifyRequest, number>();
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
  if (!deadlines.has(request)) deadlines.set(request, Date.now() + ctx.queryTimeoutMs);
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

/** `?profile=NAME` picks one of the served storages; without it, the first one answers. */
export function selectBackend(ctx: AppContext, profile: unknown): StorageBackend {
  const first = ctx.backends[0] as StorageBackend;
  if (profile === undefined) return first;
  const found = ctx.backends.find((b) => b.name === String(profile));
  if (!found) {
    const names = ctx.backends.map((b) => b.name).join(', ');
    // The reference answers a refused profile with X-Total-Count: 0, like an empty result.
    throw new HttpError(
      400,
      `unknown profile ${JSON.stringify(String(profile))}; this server serves: ${names}`,
      {},
      { 'X-Total-Count': '0', 'Access-Control-Expose-Headers': 'X-Total-Count' },
    );
  }
  return found;
}
