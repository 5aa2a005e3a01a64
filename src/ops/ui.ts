/**
 * The web explorer (web/, built into dist/web/) served beside the API: its history routes answer the app's
 * index.html to browsers that ask for HTML, every other client gets the API's usual 404, and its hashed assets are
 * cached for a year (through @fastify/send: ranges, conditional requests, types). The server only serves these
 * files; it imports nothing of the app.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import send from '@fastify/send';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';

/** The app's routes (web/src/url.ts); `:id` is a node's, group's or computer's UUID. */
export const UI_ROUTES = [
  '/',
  '/nodes',
  '/nodes/:id',
  '/groups',
  '/groups/:id',
  '/computers',
  '/computers/:id',
  '/users',
] as const;

const ASSETS = '/assets/';
/** The search page's path (web/src/url.ts), shared with the search API's route. */
const SEARCH_PAGE = '/search';

/**
 * Where the built app is: dist/web/ beside dist/ops/ in the built server, or the repository's dist/web/ when this
 * file runs from src/ (the tests).
 */
export function webDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [join(here, '../web'), join(here, '../../dist/web')];
  return candidates.find((dir) => exists(join(dir, 'index.html'))) ?? candidates[candidates.length - 1]!;
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Does a route of the app fall on the API (a prefix of `/` or `/nodes`)? Then the API keeps it. */
function onTheApi(route: string, prefix: string): boolean {
  if (prefix === '') return true;
  const path = route.replace(/\/:id$/, '/x');
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** A navigation of a browser: it names text/html among what it accepts (`*\/*` alone is any HTTP client). */
function asksForHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}

/** JSON in an HTML script element: nothing in it may close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** `dir` is the built app's folder (tests name another). */
export function registerUi(app: FastifyInstance, ctx: AppContext, dir = webDir()): void {
  const index = join(dir, 'index.html');
  // Where a proxy publishes the server (--public-url's path): the app's links and asset URLs start there.
  const root =
    ctx.origin.publicBase === undefined ? '' : new URL(ctx.origin.publicBase).pathname.replace(/\/$/, '');
  const config = scriptJson({ api: `${root}${ctx.prefix}`, root, sources: sourceNames(ctx) });

  // The page, read again only when the build changed it (one stat per page load, none per API request).
  let page: { mtimeMs: number; html: string } | undefined;
  const currentPage = (): string | undefined => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(index).mtimeMs;
    } catch {
      return undefined;
    }
    if (page?.mtimeMs !== mtimeMs) {
      const built = readFileSync(index, 'utf8')
        .replace(/(["'])\/assets\//g, `$1${root}/assets/`)
        .replace(
          /<script id="quarry-config" type="application\/json">[^<]*<\/script>/,
          `<script id="quarry-config" type="application/json">${config}</script>`,
        );
      page = { mtimeMs, html: built };
    }
    return page.html;
  };

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Vary', 'Accept');
    if (!asksForHtml(request)) return reply.callNotFound();
    const html = currentPage();
    if (html === undefined) {
      return reply
        .code(503)
        .header('Cache-Control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(
          `The web explorer is not built (no ${index}). Run \`npm run build\` in Quarry's folder, ` +
            `or use the API at ${root}${ctx.prefix}/.\n`,
        );
    }
    // Never cached: it names the hashed assets of the current build.
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };

  for (const route of UI_ROUTES) {
    if (!onTheApi(route, ctx.prefix)) app.get(route, answer);
  }
  // The explorer's search page is at the address of the search over every source (`/search?q=...`, without the
  // API's trailing slash; also under a source's path): a browser's navigation there gets the app, any other
  // client (the app's own requests among them) the search's answer.
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (
      path === SEARCH_PAGE &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      asksForHtml(request)
    ) {
      void answer(request, reply);
      return;
    }
    done();
  });
  if (!onTheApi(ASSETS, ctx.prefix)) {
    const assets = join(dir, 'assets');
    app.get(`${ASSETS}*`, async (request, reply) => {
      // The path as sent (send decodes it itself, and refuses what would leave the folder).
      const url = request.url;
      const end = url.indexOf('?');
      const path = url.slice(url.indexOf(ASSETS) + ASSETS.length - 1, end === -1 ? undefined : end);
      // Content-hashed names: a file never changes under its name. Dotfiles and folders are not the app's.
      const sent = await send(request.raw, path, {
        root: assets,
        immutable: true,
        maxAge: '365d',
        index: false,
        dotfiles: 'ignore',
      });
      if (sent.type === 'file') return reply.code(sent.statusCode).headers(sent.headers).send(sent.stream);
      // A range past the file's end or a failed precondition is the client's to fix; anything else is not here.
      if (sent.type === 'error' && (sent.statusCode === 412 || sent.statusCode === 416))
        return reply
          .code(sent.statusCode)
          .headers(sent.headers)
          .type('application/json; charset=utf-8')
          .send({ message: sent.metadata.error.message });
      return reply.callNotFound();
    });
  }
}

/**
 * The sources the explorer may switch between with `?profile=`: those given at start. A portal's change while
 * it runs and may be thousands; the explorer lists them from `GET /sources/` instead.
 */
function sourceNames(ctx: AppContext): string[] {
  return ctx.catalog.dynamic ? [] : ctx.catalog.names();
}
