/**
 * The OpenAPI document at `<prefix>/openapi.json` and the page that renders it at `/docs` (its script at
 * `/docs/try.js`). Neither is an endpoint of the v4 API: the root listing does not name them, and requests to
 * the API's paths never reach these routes. The document is built and serialised once per app, when it is
 * first asked for: a serving process that is never asked loads none of its modules.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.js';
import { quarryVersion } from '../../util/version.js';
import { docsPage, TRY_SCRIPT } from './docs-page.js';

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
  let page: Promise<string> | undefined;
  const docsHtml = () =>
    (page ??= documentJson().then((text) =>
      docsPage(base, `${base}${ctx.prefix}/openapi.json`, JSON.parse(text) as Record<string, unknown>),
    ));

  app.get(`${ctx.prefix}/openapi.json`, async (_request, reply) =>
    reply.type(JSON_TYPE).send(await documentJson()),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(await docsHtml()));
  app.get('/docs/try.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(TRY_SCRIPT),
  );
}
