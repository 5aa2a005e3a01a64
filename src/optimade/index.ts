/**
 * The OPTIMADE API (v1.3) beside the v4 API: `/optimade/v1/` for the source, `/optimade/versions`, and the
 * index meta-database at `/optimade/index/v1/`. Every URL an answer names is built from the request's own URL,
 * so the same handlers serve a source mounted under a path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { logFailure } from '../http/failures.js';
import { markUntaggable, requestSource, requestTimeLimitMs } from '../http/request.js';
import { requestUrl } from '../http/url.js';
import type { StorageBackend } from '../storage/types.js';
import { asShortage } from '../storage/shortage.js';
import { OptimadeError } from './errors.js';
import {
  API_VERSION,
  placeOf,
  sendDocument,
  sendError,
  SERVED_VERSION_PATHS,
  type Place,
} from './envelope.js';
import { indexInfo, indexLinks, sourceInfo, sourceLinks, structuresInfo, VERSIONS_CSV } from './info.js';
import { readParams, responseFields, type Endpoint } from './params.js';
import { listStructures, oneStructure, prepareListing, readsSymmetry } from './structures.js';
import type { SideTable } from './side-table.js';
import { closing, SideTables } from './tables.js';
import { registerAllSources } from './all-sources.js';

/** The source a request addresses: the one place to change when sources are served under their own paths. */
export function sourceOf(ctx: AppContext, request: FastifyRequest): StorageBackend {
  return requestSource(ctx, request);
}

type Handler = (request: FastifyRequest, place: Place, params: URLSearchParams) => Promise<unknown> | unknown;

export function registerOptimade(app: FastifyInstance, ctx: AppContext) {
  const tables = new SideTables((backend, queryTimeoutMs) => ({
    cacheDir: backend.cacheDir,
    queryTimeoutMs,
    symmetryGate: ctx.optimadeSymmetryGate,
  }));
  // Set when closing starts, before the tables and the sources are closed under the requests still running.
  let closed = false;
  app.addHook('preClose', async () => {
    closed = true;
  });
  app.addHook('onClose', async () => tables.close());

  const route = (path: string, endpoint: Endpoint, handler: Handler, where = placeOf) =>
    app.get(path, async (request, reply) => {
      const place = where(ctx, request);
      try {
        const params = readParams(requestUrl(request, ctx.origin).rawQuery, endpoint);
        return sendDocument(reply, (await handler(request, place, params)) as Record<string, unknown>);
      } catch (error) {
        // A request still running when the server closes finds its tables closed under it: not a server fault.
        const answer = closed && !(error instanceof OptimadeError) ? closing() : asOptimade(error);
        // Every 5xx is on stderr as the v4 API's are, `--log` or not (a 503 summarised). A 501 is the
        // specification's answer to a filter this server does not implement (a type mismatch, a correlated
        // query): the client's request refused, not a failure (`--log` has it, as every request).
        if (answer.status >= 500 && answer.status !== 501) logFailure(request, answer.status, error);
        return sendError(reply, place, answer);
      }
    });
  // The source's own time limit where a sources file gives it one, as for its v4 API: the request's, and each
  // statement's of its side table. Steady: with read replicas, every OPTIMADE request reads the server the side
  // table is built from (src/optimade/tables.ts), so that a lagging replica never misses a structure it lists.
  const budget = (request: FastifyRequest) => {
    const limitMs = requestTimeLimitMs(ctx, request);
    return { deadline: Date.now() + limitMs, limitMs, steady: true };
  };

  /**
   * `read` on the side table of the request's source, within the request's time limit. An answer made before the
   * table's symmetry is found is not the one the same request gets after it, so it gets no tag.
   */
  const readTable = <T>(
    request: FastifyRequest,
    needsSymmetry: boolean,
    read: (table: SideTable, backend: StorageBackend, b: ReturnType<typeof budget>) => Promise<T>,
  ): Promise<T> => {
    const b = budget(request);
    const backend = sourceOf(ctx, request);
    return tables.read(
      backend,
      b.deadline,
      b.limitMs,
      (table) => {
        if (table.symmetry !== 'complete') markUntaggable(request);
        return read(table, backend, b);
      },
      needsSymmetry,
    );
  };

  const versions = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('text/csv; header=present').send(VERSIONS_CSV);
  app.get('/optimade/versions', versions);
  app.get('/optimade/index/versions', versions);

  // `/v1` serves the latest version; `/v1.3` and `/v1.3.0` the same, as the specification allows.
  for (const version of SERVED_VERSION_PATHS) {
    const base = `/optimade/${version}`;
    route(`${base}/info`, 'other', (_r, place) => sourceInfo(place));
    route(`${base}/info/structures`, 'other', (_r, place) => structuresInfo(place));
    route(`${base}/links`, 'listing', (_r, place, params) => sourceLinks(place, params));
    route(`${base}/structures`, 'listing', async (request, place, params) => {
      const prepared = prepareListing(params);
      return readTable(request, prepared.needsSymmetry, (table, backend, b) =>
        listStructures(ctx, place, backend, table, params, prepared, b),
      );
    });
    route(`${base}/structures/:id`, 'entry', async (request, place, params) => {
      const fields = responseFields(params.get('response_fields'));
      const id = (request.params as { id: string }).id;
      return readTable(request, readsSymmetry(fields ?? []), (table, backend, b) =>
        oneStructure(ctx, place, backend, table, id, fields, b),
      );
    });
    route(`/optimade/index/${version}/info`, 'other', (_r, place) => indexInfo(place, ctx));
    route(`/optimade/index/${version}/links`, 'listing', (_r, place, params) =>
      indexLinks(ctx, place, params),
    );
  }

  registerAllSources({
    app,
    ctx,
    tables,
    route,
    versions: SERVED_VERSION_PATHS,
    sourceInfo,
    structuresInfo,
    sourceLinks,
  });

  // Anything else under /optimade is answered in OPTIMADE's form, not the v4 API's.
  // A versioned base URL of a version not served (`/v2`, `/v1.2`): 553, as the specification recommends.
  const notFound = async (request: FastifyRequest, reply: FastifyReply) => {
    const version = /\/optimade(?:\/index|\/all)?\/(v\d[^/]*)(?:\/|$)/.exec(
      requestUrl(request, ctx.origin).rawPath,
    )?.[1];
    const error =
      version !== undefined && !SERVED_VERSION_PATHS.includes(version)
        ? new OptimadeError(
            553,
            'Version Not Supported',
            `version ${version} is not served; this server serves OPTIMADE ${API_VERSION} under /optimade/v1/ (also /optimade/v1.3/ and /optimade/v1.3.0/)`,
          )
        : new OptimadeError(
            404,
            'Not Found',
            'no such OPTIMADE endpoint; a source offers info, info/structures, links and structures under /optimade/v1/, the index info and links under /optimade/index/v1/ (and a portal the database over every source under /optimade/all/v1/)',
          );
    return sendError(reply, placeOf(ctx, request), error);
  };
  app.get('/optimade', notFound);
  app.get('/optimade/*', notFound);
  // Preflight of browser clients (OPTIMADE's clients are often pages of other sites): every endpoint is read-only.
  app.options('/optimade/*', async (request, reply) =>
    reply
      .code(204)
      .headers({
        Allow: 'GET, HEAD, OPTIONS',
        'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
        'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? 'Content-Type',
        'Access-Control-Max-Age': '86400',
      })
      .send(),
  );
}

/**
 * Storage refusals keep their status (503 with Retry-After when busy, 400 for a refused value); anything else is
 * a 500 in the specification's form.
 */
function asOptimade(error: unknown): OptimadeError {
  if (error instanceof OptimadeError) return error;
  const shortage = asShortage(error);
  if (shortage !== undefined) {
    const out = new OptimadeError(503, 'Service Unavailable', shortage.message);
    return Object.assign(out, { retryAfter: shortage.retryAfter });
  }
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 600) {
    const titles: Record<number, string> = {
      400: 'Bad Request',
      502: 'Bad Gateway',
      503: 'Service Unavailable',
    };
    const out = new OptimadeError(status, titles[status] ?? 'Error', (error as Error).message);
    const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
    return Object.assign(out, {
      retryAfter: typeof retryAfter === 'number' ? retryAfter : status === 503 ? 5 : undefined,
    });
  }
  // A fault of the server's own is still answered in the specification's form (and logged by the caller).
  return new OptimadeError(
    500,
    'Internal Server Error',
    'the server failed to answer this request; it is logged, and asking again will not help until it is fixed',
  );
}
