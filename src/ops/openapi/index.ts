/**
 * The OpenAPI document at `<prefix>/openapi.json` and the page that renders it at `/docs` (assets under
 * `/docs/assets/`). Neither is an endpoint of the v4 API: the root listing does not name them, and requests to
 * the API's paths never reach these routes. The document is built and serialised once per app, when it is
 * first asked for: a serving process that is never asked loads none of its modules.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.js';
import { quarryVersion } from '../../util/version.js';
import { ASSETS, docsPage, initScript, swaggerUiFolder } from './docs-page.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The path part of `--public-url` (`https://example.org/quarry` -> `/quarry`), '' without one. */
function basePath(publicBase: string | undefined): string {
  return publicBase === undefined ? '' : new URL(publicBase).pathname.replace(/\/+$/, '');
}

export function registerOpenApi(app: FastifyInstance, ctx: AppContext): void {
  let json: Promise<string> | undefined;
  const documentJson = () =>
    (json ??= import('./document.js').then(({ buildDocument }) =>
      JSON.stringify(
        buildDocument({
          prefix: ctx.prefix,
          publicBase: ctx.origin.publicBase,
          posting: ctx.posting,
          limitDefault: ctx.limitDefault,
          perpageDefault: ctx.perpageDefault,
          version: quarryVersion(),
        }),
      ),
    ));
  const base = basePath(ctx.origin.publicBase);
  const page = docsPage(base, 'AiiDA REST API v4 (Quarry)');
  const init = initScript(`${base}${ctx.prefix}/openapi.json`);

  app.get(`${ctx.prefix}/openapi.json`, async (_request, reply) =>
    reply.type(JSON_TYPE).send(await documentJson()),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get('/docs/init.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(init),
  );
  const allowed = new Set(ASSETS.map((name) => `/${name}`));
  app.register(fastifyStatic, {
    root: swaggerUiFolder(),
    prefix: '/docs/assets/',
    decorateReply: false,
    index: false,
    // Only the files the page uses; the package's own index.html would load the Petstore example.
    allowedPath: (path) => allowed.has(path),
    maxAge: '1d',
  });
}
