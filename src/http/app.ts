/** The Fastify application: one request path for every endpoint of the v4 API. */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { HttpError } from '../rest/errors.js';
import { toJson } from '../util/exact-json.js';
import { contextFrom, type AppContext, type AppOptions } from './context.js';
import { endpointTable, listEndpoints, methodsOf, routePath } from './endpoints.js';
import { registerCollections } from './routes/collections.js';
import { registerNodeItems } from './routes/node-items.js';
import { registerNodeStats } from './routes/node-stats.js';
import { registerQueryBuilder } from './routes/querybuilder.js';
import { registerServer } from './routes/server.js';

export type { AppOptions };

const schemasRefused = () => () => {
  throw new Error('Quarry routes declare no schemas');
};

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const ctx = contextFrom(options);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Query strings are ours to parse (the v4 language), not Fastify's.
      querystringParser: () => ({}),
    },
    // No route declares a schema; naming compilers of our own keeps Fastify from loading its own (Ajv and
    // fast-json-stringify, a sixth of a serving process's start) for nothing.
    schemaController: {
      compilersFactory: { buildValidator: schemasRefused, buildSerializer: schemasRefused },
    },
  });

  // Numbers as the data holds them: 240.0 stays a float, long integers keep their digits.
  app.setReplySerializer((payload) => toJson(payload));

  // The reference reads any POST body as JSON whatever its Content-Type (Flask's get_json(force=True)).
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('The request body is not valid JSON'), { statusCode: 400 }), undefined);
    }
  });

  // Every answer is for cross-origin clients (the explorer apps), errors and downloads included. A callback
  // hook, not an async one: no promise and no extra turn of the microtask queue per request.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    done();
  });

  registerServer(app, ctx);
  registerCollections(app, ctx);
  registerNodeItems(app, ctx);
  registerNodeStats(app, ctx);
  registerQueryBuilder(app, ctx);
  registerPendingAndMethods(app, ctx);

  // The same answer for every unknown URL, serialised once: floods of bad URLs cost next to nothing.
  const notFound = JSON.stringify({
    message: 'The requested URL is not found on the server.',
    available_endpoints: listEndpoints(ctx.prefix, ctx.posting),
  });
  app.setNotFoundHandler(async (_request, reply) =>
    reply.code(404).type('application/json; charset=utf-8').send(notFound),
  );
  app.setErrorHandler(async (error: FastifyError | HttpError | Error, request, reply) => {
    const { status, body } = errorAnswer(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    if (error instanceof HttpError) reply.headers(error.headers);
    return reply.code(status).send(body);
  });
  return app;
}

/** Every endpoint answers OPTIONS and refuses the methods it does not take with 405. */
function registerPendingAndMethods(app: FastifyInstance, ctx: AppContext) {
  for (const endpoint of endpointTable(ctx.posting)) {
    const url = routePath(ctx.prefix, endpoint.pattern) || '/';
    // Every listed endpoint must have been registered above; a gap is a bug of ours, found at start.
    if (!app.hasRoute({ method: 'GET', url })) throw new Error(`no route registered for ${url}`);
    const allowed = methodsOf(endpoint);
    const allow = allowed.join(', ');
    app.options(url, async (request, reply) =>
      reply
        .code(200)
        .headers({
          Allow: allow,
          'Access-Control-Allow-Methods': allow,
          'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? 'Content-Type',
          'Access-Control-Max-Age': '86400',
          'Content-Type': 'text/html; charset=utf-8',
        })
        .send(''),
    );
    const refused = ['POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allowed.includes(m));
    app.route({
      method: refused,
      url,
      handler: async (request, reply) =>
        reply
          .code(405)
          .header('Allow', allow)
          .send({
            message: `The method ${request.method} is not allowed for this URL; it answers ${allow}.`,
          }),
    });
  }
}

function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof HttpError)
    return { status: error.status, body: { message: error.message, ...error.extra } };
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ??
    (error as { statusCode?: unknown }).statusCode;
  const message = error instanceof Error ? error.message : String(error);
  // 4xx for what the client can fix; 503 for a query stopped at the time limit or a database that is down;
  // 502 for data the storage gave back damaged.
  if (typeof status === 'number' && ((status >= 400 && status < 500) || status === 502 || status === 503)) {
    return { status, body: { message } };
  }
  return {
    status: 500,
    body: { message: 'Internal error while answering this request; see the server log.' },
  };
}
