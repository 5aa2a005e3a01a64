/**
 * OPTIONS on every endpoint, and 405 with `Allow` for every other method (DELETE, TRACE, PROPFIND, ...) where
 * the path exists; unknown paths stay 404 whatever the method.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { endpointTable, methodsOf, routePath } from './endpoints.js';

/** The methods a path answers (`GET, HEAD, OPTIONS`), or undefined for a path that is no endpoint. */
export type AllowedAt = (rawUrl: string) => string | undefined;

/**
 * Registers OPTIONS on every endpoint and returns what the not-found handler asks for a request the router
 * did not match: whether its path is an endpoint, and which methods that answers. A route per refused method
 * would do too, but Node knows some thirty methods: 1,400 routes that cost every serving process 50 ms at start.
 */
export function registerMethods(app: FastifyInstance, ctx: AppContext): AllowedAt {
  const endpoints: [RegExp, string][] = [];
  for (const endpoint of endpointTable(ctx.posting)) {
    const url = routePath(ctx.prefix, endpoint.pattern) || '/';
    // Every listed endpoint must have been registered above; a gap is a bug of ours, found at start.
    if (!app.hasRoute({ method: 'GET', url })) throw new Error(`no route registered for ${url}`);
    const allow = methodsOf(endpoint).join(', ');
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
    endpoints.push([pathPattern(ctx.prefix, endpoint.pattern), allow]);
  }
  return (rawUrl) => {
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    return endpoints.find(([pattern]) => pattern.test(path))?.[1];
  };
}

/** The router's reading of an endpoint pattern: `<id>` one segment, `<int:page>` digits, `/` at the end or not. */
function pathPattern(prefix: string, pattern: string): RegExp {
  const literal = (prefix + pattern).replace(/\/$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace('<id>', '[^/]+').replace('<int:page>', '\\d+')}/?$`);
}
