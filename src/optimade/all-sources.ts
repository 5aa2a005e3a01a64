/**
 * The OPTIMADE database over every source of a portal, at `/optimade/all/v1/` (no source can be named
 * `optimade`, src/sources/names.ts, so no source's path shadows it): its structures are every source's, with
 * ids `<source>:<uuid>`, and filters, sorts and pages work over the union as over one source
 * (all-listing.ts). A server of one source given on the command line is no portal and has none.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { mountOf } from '../http/mount.js';
import { requestUrl } from '../http/url.js';
import {
  allId,
  checkSortedDepth,
  countOf,
  eachSource,
  filterFor,
  isPortal,
  keyedRows,
  mergePage,
  sidsOf,
  splitId,
  unionOrder,
  type Fanout,
  type SourceTable,
} from './all-listing.js';
import { meta, sendError, type Place } from './envelope.js';
import { OptimadeError } from './errors.js';
import { VERSIONS_CSV } from './info.js';
import { responseFields, type Endpoint } from './params.js';
import { entriesOf, nextPage, prepareListing, readsSymmetry, resource } from './structures.js';
import type { SideTables } from './tables.js';

type Handler = (request: FastifyRequest, place: Place, params: URLSearchParams) => Promise<unknown> | unknown;

export interface AllRoutes {
  ctx: AppContext;
  tables: SideTables;
  route: (path: string, endpoint: Endpoint, handler: Handler, where: typeof allPlaceOf) => void;
  app: FastifyInstance;
  /** The base URLs under `/optimade/all/` (v1, v1.3, v1.3.0). */
  versions: string[];
  /** The answers of a source's database, which this one shares: info, info/structures, links. */
  sourceInfo: (place: Place) => unknown;
  structuresInfo: (place: Place) => unknown;
  sourceLinks: (place: Place, params: URLSearchParams) => unknown;
}

/** The request's place: the server's origin, the base `/optimade/all/v1` (or v1.3, v1.3.0) and what follows. */
export function allPlaceOf(ctx: AppContext, request: FastifyRequest): Place {
  const url = requestUrl(request, ctx.origin);
  const origin = url.urlRoot.replace(/\/$/, '');
  const m = /\/optimade\/all(\/v1(?:\.3(?:\.0)?)?)?(\/.*)?$/.exec(url.rawPath.replace(/\/+$/, ''));
  const rest = m?.[2] ?? '/';
  return {
    origin,
    mount: '',
    base: `${origin}/optimade/all${m?.[1] ?? ''}`,
    representation: `${rest}${url.rawQuery === '' ? '' : `?${url.rawQuery}`}`,
  };
}

export function registerAllSources(r: AllRoutes): void {
  const { ctx, tables } = r;
  // Under a source's path (`/<name>/optimade/all/v1/`), or on a server that is no portal: not found.
  const served = (request: FastifyRequest) => {
    if (mountOf(request.raw) === undefined && isPortal(ctx)) return;
    throw new OptimadeError(
      404,
      'Not Found',
      isPortal(ctx)
        ? 'the database over every source is at the server root, /optimade/all/v1/, not under a source'
        : 'this server serves one source, whose database is /optimade/v1/; the database over every source, /optimade/all/v1/, is a portal’s',
    );
  };
  const fanout = (request: FastifyRequest, needsSymmetry: boolean): Fanout => ({
    ctx,
    tables,
    deadline: Date.now() + ctx.queryTimeoutMs,
    needsSymmetry,
    onSkipped: (name, error) =>
      request.log.warn({ err: error, source: name }, 'OPTIMADE over every source left a source out'),
  });

  r.app.get('/optimade/all/versions', async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      served(request);
    } catch (error) {
      return sendError(reply, allPlaceOf(ctx, request), error as OptimadeError);
    }
    return reply.type('text/csv; header=present').send(VERSIONS_CSV);
  });
  for (const version of r.versions) {
    const base = `/optimade/all/${version}`;
    const route = (path: string, endpoint: Endpoint, handler: Handler) =>
      r.route(
        path,
        endpoint,
        (request, place, params) => {
          served(request);
          return handler(request, place, params);
        },
        allPlaceOf,
      );
    route(`${base}/info`, 'other', (_r, place) => r.sourceInfo(place));
    route(`${base}/info/structures`, 'other', (_r, place) => r.structuresInfo(place));
    route(`${base}/links`, 'listing', (_r, place, params) => r.sourceLinks(place, params));
    route(`${base}/structures`, 'listing', (request, place, params) => {
      const prepared = prepareListing(params);
      checkSortedDepth(prepared.listing);
      return listAll(fanout(request, prepared.needsSymmetry), place, params, prepared);
    });
    route(`${base}/structures/:id`, 'entry', (request, place, params) => {
      const fields = responseFields(params.get('response_fields'));
      const id = (request.params as { id: string }).id;
      return oneOfAll(fanout(request, readsSymmetry(fields ?? [])), place, id, fields);
    });
  }
}

async function listAll(
  fan: Fanout,
  place: Place,
  params: URLSearchParams,
  prepared: ReturnType<typeof prepareListing>,
): Promise<Record<string, unknown>> {
  const { listing } = prepared;
  const names = unionOrder(fan.ctx);
  const window = listing.offset + listing.limit;
  // First pass: every source's count, and in a requested order its first rows of that order, for the merge.
  const first = await eachSource(fan, names, async (source) => {
    const filter = filterFor(listing.filter, source.name);
    const counts = await countOf(source, filter, prepared.listValues);
    const keyed =
      listing.sort.length === 0 || counts.matched === 0
        ? undefined
        : await keyedRows(source, filter, listing, window);
    return { ...counts, keyed };
  });
  const total = first.results.reduce((sum, r) => sum + (r?.matched ?? 0), 0);
  const available = first.results.reduce((sum, r) => sum + (r?.available ?? 0), 0);

  // The page as (source, sids) in its order.
  const wanted = new Map<number, { offset: number; limit: number } | number[]>();
  let order: { source: number; sid: number }[] | undefined;
  if (listing.sort.length === 0) {
    let start = 0;
    first.results.forEach((r, i) => {
      const n = r?.matched ?? 0;
      const from = Math.max(listing.offset, start);
      const to = Math.min(window, start + n);
      if (to > from) wanted.set(i, { offset: from - start, limit: to - from });
      start += n;
    });
  } else {
    order = mergePage(
      first.results.map((r) => r?.keyed),
      listing,
      listing.offset,
      listing.limit,
    );
    for (const { source, sid } of order) {
      const sids = (wanted.get(source) as number[] | undefined) ?? [];
      sids.push(sid);
      wanted.set(source, sids);
    }
  }

  // Second pass: the page's entries, from the sources that hold them.
  const chosen = [...wanted.keys()].sort((a, b) => a - b);
  const placeOfName = new Map(names.map((name, i) => [name, i]));
  const second = await eachSource(
    fan,
    chosen.map((i) => names[i]!),
    async (source) => {
      const at = wanted.get(placeOfName.get(source.name)!)!;
      const sids = Array.isArray(at)
        ? at
        : await sidsOf(source, filterFor(listing.filter, source.name), listing, at.offset, at.limit);
      return resources(fan, place, source, sids, listing.fields);
    },
  );
  let data: unknown[];
  if (order === undefined) data = second.results.flatMap((r) => r ?? []);
  else {
    const bySid = new Map<string, unknown>();
    second.results.forEach((r, k) => {
      for (const e of r ?? []) bySid.set(`${chosen[k]}:${(e as { sid: number }).sid}`, e);
    });
    data = order.flatMap(({ source, sid }) => bySid.get(`${source}:${sid}`) ?? []);
  }
  const more = listing.offset + listing.limit < total;
  const filter = listing.filter === undefined ? undefined : prepared.filter;
  const warnings = [
    ...(filter?.foreign ?? []).map(
      (name) => `${name} is a property of another provider; it is treated as unknown (null) here`,
    ),
    ...first.warnings,
    ...second.warnings,
  ];
  return {
    data: data.map((e) => (e as { resource: unknown }).resource),
    meta: meta(place, { dataReturned: total, dataAvailable: available, more, warnings }),
    links: { next: more ? nextPage(place, params, listing) : null },
  };
}

/** The page's entries of one source, as resources of this database (ids and links name the source). */
async function resources(
  fan: Fanout,
  place: Place,
  source: SourceTable,
  sids: number[],
  fields: string[] | undefined,
): Promise<{ sid: number; resource: unknown }[]> {
  const entries = await entriesOf(source.backend, source.table, sids, source.budget);
  const own: Place = { ...place, mount: `/${source.name}` };
  return entries.map((entry) => {
    const uuid = entry.immutable_id as string;
    const id = allId(source.name, uuid);
    const r = resource(fan.ctx, own, entry, fields);
    return {
      sid: Number(entry._quarry_pk),
      resource: { ...r, id, links: { self: `${place.base}/structures/${id}` } },
    };
  });
}

async function oneOfAll(
  fan: Fanout,
  place: Place,
  id: string,
  fields: string[] | undefined,
): Promise<Record<string, unknown>> {
  const named = splitId(id);
  const notFound = () =>
    new OptimadeError(
      404,
      'Not Found',
      `no structure has the id ${JSON.stringify(id)} (ids here are <source>:<uuid>, the source's name and the node's UUID)`,
    );
  if (named === undefined || !fan.ctx.catalog.has(named.source)) throw notFound();
  const { results, warnings } = await eachSource(fan, [named.source], async (source) => {
    const rows = await source.table.db.values(
      { sql: 'SELECT sid FROM structures WHERE uuid = ?', params: [named.uuid], pointLookup: true },
      source.budget,
    );
    if (rows.length === 0) return undefined;
    const [found] = await resources(fan, place, source, [Number(rows[0]![0])], fields);
    return found?.resource;
  });
  if (warnings.length > 0)
    throw new OptimadeError(502, 'Bad Gateway', warnings[0]!.replace('is left out', 'cannot be read'));
  const found = results[0];
  if (found === undefined) throw notFound();
  return {
    data: found,
    meta: meta(place, { dataReturned: 1 }),
    links: { self: `${place.base}/structures/${id}` },
  };
}
