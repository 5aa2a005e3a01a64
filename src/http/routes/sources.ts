/**
 * `GET /sources/`: the sources served, for people and for the explorer's home, paged and filtered by name
 * (`?name=substring&page=N&perpage=K`) so that thousands stay cheap to list. Nothing is opened to answer:
 * what is not known of a source no serving process opened yet (its node count, its AiiDA version) is null.
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../rest/errors.js';
import type { AppContext } from '../context.js';

const PERPAGE_DEFAULT = 100;
const PERPAGE_MAX = 1_000;
const PARAMETERS = ['name', 'page', 'perpage'];

function positiveInteger(value: string, key: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new HttpError(
      400,
      `${key}=${JSON.stringify(value)} is not valid: ${key} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? 'of 1 or more' : `from 1 to ${max}`}`,
    );
  }
  return Number(value);
}

function parseIndexQuery(raw: string) {
  const params = new URLSearchParams(raw);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!PARAMETERS.includes(key)) {
      throw new HttpError(400, `unknown parameter "${key}"; /sources/ takes ${PARAMETERS.join(', ')}`);
    }
    if (seen.has(key)) throw new HttpError(400, `the parameter "${key}" is given more than once`);
    seen.add(key);
  }
  const page = params.get('page');
  const perpage = params.get('perpage');
  return {
    name: params.get('name') ?? undefined,
    page: page === null ? 1 : positiveInteger(page, 'page'),
    perpage: perpage === null ? PERPAGE_DEFAULT : positiveInteger(perpage, 'perpage', PERPAGE_MAX),
  };
}

export function registerSourceIndex(app: FastifyInstance, ctx: AppContext) {
  // Where a proxy publishes the server (--public-url's path): the links of the index start there.
  const root =
    ctx.origin.publicBase === undefined ? '' : new URL(ctx.origin.publicBase).pathname.replace(/\/$/, '');
  app.get('/sources', async (request, reply) => {
    const raw = request.raw.url ?? '';
    const q = raw.indexOf('?');
    const { name, page, perpage } = parseIndexQuery(q === -1 ? '' : raw.slice(q + 1));
    const all = ctx.catalog.list(name);
    const shown = all.slice((page - 1) * perpage, page * perpage);
    return reply
      .header('Cache-Control', 'no-store')
      .header('X-Total-Count', String(all.length))
      .header('Access-Control-Expose-Headers', 'X-Total-Count')
      .send({
        sources: shown.map((s) => ({
          name: s.name,
          kind: s.kind,
          api: `${root}/${s.name}${ctx.prefix}`,
          explorer: `${root}/${s.name}/`,
          optimade: `${root}/${s.name}/optimade/v1`,
          nodes: s.nodes,
          aiida_version: s.aiidaVersion,
          export_version: s.exportVersion,
          // Whether this server opened it since it started, whichever serving process answers (shared-facts.ts).
          open: s.opened,
        })),
        total: all.length,
        page,
        perpage,
      });
  });
}
