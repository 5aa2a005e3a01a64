/**
 * The server put together: the Fastify application with the request path of the v4 API (src/http/) and the
 * plugins above it (src/ops/: compression, ETags, metrics, health, logs, OpenAPI, the explorer UI; and
 * src/optimade/). It sits above all of them, so that every import points down.
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { registerCompression } from '../ops/compression.js';
import { registerCaching } from '../ops/etag.js';
import { keptGets } from '../ops/kept-gets.js';
import { memoryAnswerStore } from '../ops/answer-store.js';
import { answerFile } from '../ops/answer-file.js';
import { registerOpenApi } from '../ops/openapi/index.js';
import { HttpError } from '../rest/errors.js';
import { toJson } from '../util/exact-json.js';
import { contextFrom, type AppOptions, type ServerTimeouts } from '../http/context.js';
import { clientError, frameworkError, refuseConnect } from '../http/early-errors.js';
import { listEndpoints } from '../http/endpoints.js';
import { errorAnswer, logFailure } from '../http/failures.js';
import { registerMethods } from '../http/methods.js';
import { sourceRewriter } from '../http/mount.js';
import { originProblem } from '../http/origin.js';
import { registerSourceLeases } from '../http/request.js';
import { registerSourceIndex } from '../http/routes/sources.js';
import { registerCollections } from '../http/routes/collections.js';
import { registerNodeItems } from '../http/routes/node-items.js';
import { registerNodeStats } from '../http/routes/node-stats.js';
import { registerQueryBuilder } from '../http/routes/querybuilder.js';
import { registerServer } from '../http/routes/server.js';
import { registerOptimade } from '../optimade/index.js';
import { registerSearch } from '../search/index.js';
import { registerExport } from '../export/index.js';
import { registerUi } from '../ops/ui.js';
import { registerHealth } from '../ops/health.js';
import { registerMetrics } from '../ops/metrics.js';
import { logServerOptions, registerRequestLog } from '../ops/request-log.js';
import { retryOnServerLoss } from '../http/retry.js';

export type { AppOptions };

const schemasRefused = () => () => {
  throw new Error('Quarry routes declare no schemas');
};

/**
 * How long a connection may take, so that no client holds one forever (slow-loris): its headers must arrive
 * within `headersMs` and the whole request within `requestMs` (a body is 1 MiB at most), both checked every
 * `checkMs`; idle between requests it is closed after `keepAliveMs` (Fastify's 72 s, longer than the 60 s idle
 * limit of common proxies, so that a proxy never reuses a connection Quarry is closing). Silent in both
 * directions for `silenceMs` (a client that stops reading an answer), it is closed too; a request whose queries
 * run is silent as well, so that limit stays well above the query time limit.
 */
function serverTimeouts(options: AppOptions): ServerTimeouts {
  return {
    headersMs: 15_000,
    requestMs: 60_000,
    checkMs: 5_000,
    keepAliveMs: 72_000,
    silenceMs: Math.max(120_000, 4 * (options.queryTimeoutMs ?? 30_000)),
    ...options.timeouts,
  };
}

/**
 * Node's HTTP parser bounds the request line and headers (16 KiB by default), so a router limit of its own
 * would only make an over-long id a 414 where every other id that names nothing is a 404.
 */
const MAX_PARAM_LENGTH = 64 * 1024;

/** The default bound of kept whole answers: of the process's memory, or of the machine's file. */
const KEPT_BYTES = 64 * 1024 * 1024;

/** Where whole GET answers are kept, as the options say. */
function keptStore(options: AppOptions) {
  const kept = options.keptAnswers;
  if (kept === false) return { enabled: false };
  const bytes = kept?.bytes ?? KEPT_BYTES;
  if (kept?.file === undefined) return { store: memoryAnswerStore(bytes) };
  return { store: answerFile(kept.file, bytes), scope: kept.scope ?? '' };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const ctx = contextFrom(options);
  const timeouts = serverTimeouts(options);
  const log = { log: options.logger, format: options.logFormat, destination: options.logDestination };
  const app = Fastify({
    ...logServerOptions(log),
    // A request that arrives on an open connection while the server stops is answered (with Connection:
    // close), not refused with Fastify's own 503: the drain is bounded (src/cli/shutdown.ts).
    return503OnClosing: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // `/<name>/api/v4/...` is routed as `/api/v4/...` of the source <name> (src/http/mount.ts).
    rewriteUrl: sourceRewriter(ctx.catalog, ctx.reserved),
    routerOptions: {
      ignoreTrailingSlash: true,
      // Query strings are ours to parse (the v4 language), not Fastify's.
      querystringParser: () => ({}),
      maxParamLength: MAX_PARAM_LENGTH,
    },
    connectionTimeout: timeouts.silenceMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkMs,
      // A missing Host is answered in our shape (origin.ts), not with Node's bare 400.
      requireHostHeader: false,
    },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // No route declares a schema; naming compilers of our own keeps Fastify from loading its own (Ajv and
    // fast-json-stringify, a sixth of a serving process's start) for nothing.
    schemaController: {
      compilersFactory: { buildValidator: schemasRefused, buildSerializer: schemasRefused },
    },
  });

  refuseConnect(app.server);
  // Numbers as the data holds them: 240.0 stays a float, long integers keep their digits.
  app.setReplySerializer((payload) => toJson(payload));

  // Bodies are kept as text, whatever their Content-Type: the one route that reads one (POST /querybuilder/)
  // reads it as JSON itself, as the reference does (Flask's get_json(force=True)). Fastify's own parsers would
  // take text/plain as a string and refuse bad JSON in their own words.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Every answer is for cross-origin clients (the explorer apps), errors and downloads included, and carries
  // its request id (src/ops/request-log.ts); no answer repeats a Host that is not a host. A callback hook,
  // not an async one: no promise and no extra turn of the microtask queue per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('X-Request-Id', request.id);
    const problem = originProblem(request, ctx.origin);
    if (problem === undefined) done();
    else reply.code(400).send({ message: problem });
  });

  registerSourceLeases(app, ctx);
  registerRequestLog(app, ctx, log);
  await registerMetrics(app, ctx, options.metrics ?? false);
  registerHealth(app, ctx);
  const kept = keptGets(ctx, keptStore(options));
  // Kept answers are taken as rendered, before compression; compressed forms are kept by the compression plugin.
  kept.registerCapture(app);
  app.addHook('onClose', (_app, done) => {
    kept.close();
    done();
  });
  // Compression first: the tag written on an answer names the coding it was sent with.
  if (options.compression ?? true) registerCompression(app);
  registerCaching(app, ctx, { maxAgeSeconds: options.cacheMaxAge ?? 300, vary: options.compression ?? true });
  // After the tags: a client that holds the answer gets its 304 first.
  kept.registerReplay(app);
  retryOnServerLoss(app, ctx);
  registerServer(app, ctx);
  registerSourceIndex(app, ctx);
  registerCollections(app, ctx);
  registerNodeItems(app, ctx);
  registerNodeStats(app, ctx);
  registerQueryBuilder(app, ctx);
  registerOptimade(app, ctx);
  registerSearch(app, ctx);
  registerExport(app, ctx, options.exports);
  if (options.ui !== false) registerUi(app, ctx);
  // Not endpoints of the API: the root listing does not name them.
  registerOpenApi(app, ctx);
  const allowedAt = registerMethods(app, ctx);

  // The same answer for every unknown URL, serialised once: floods of bad URLs cost next to nothing.
  const notFound = JSON.stringify({
    message: 'The requested URL is not found on the server.',
    available_endpoints: listEndpoints(ctx.prefix, ctx.posting),
  });
  app.setNotFoundHandler(async (request, reply) => {
    const allow = allowedAt(request.raw.url ?? request.url);
    if (allow !== undefined && !allow.split(', ').includes(request.method)) {
      return reply
        .code(405)
        .header('Allow', allow)
        .send({
          message: `The method ${request.method} is not allowed for this URL; it answers ${allow}.`,
        });
    }
    return reply.code(404).type('application/json; charset=utf-8').send(notFound);
  });
  app.setErrorHandler(async (error: FastifyError | HttpError | Error, request, reply) => {
    const { status, body } = errorAnswer(error);
    if (status >= 500) logFailure(request, status, error);
    // The database's own words stay here: the client's answer says what to fix in its terms.
    else if (error instanceof Error && error.cause !== undefined)
      request.log.warn({ err: error.cause }, 'the database refused a value of the request');
    if (error instanceof HttpError) reply.headers(error.headers);
    // A refusal because the server is busy says when to come back.
    const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
    if (typeof retryAfter === 'number') reply.header('Retry-After', String(retryAfter));
    return reply.code(status).send(body);
  });
  return app;
}
