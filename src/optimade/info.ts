/** `/info`, `/info/structures`, `/links` and `/versions`, for a source and for the index meta-database. */
import type { AppContext } from '../http/context.js';
import { API_VERSION, indexBase, meta, sourceBase, type Place } from './envelope.js';
import { STRUCTURE_PROPERTIES } from './properties.js';
import { notImplemented } from './errors.js';
import { parseFilter } from './filter-ast.js';
import { filterLinks } from './links-filter.js';
import { pagingParams } from './params.js';
import { ALL_LINK_ID, isPortal } from './all-listing.js';

export const VERSIONS_CSV = 'version\n1\n';

function baseInfo(place: Place, isIndex: boolean) {
  return {
    api_version: API_VERSION,
    available_api_versions: [{ url: `${place.base}/`, version: API_VERSION }],
    formats: ['json'],
    entry_types_by_format: { json: isIndex ? [] : ['structures'] },
    available_endpoints: isIndex ? ['info', 'links'] : ['info', 'links', 'structures'],
    is_index: isIndex,
  };
}

export function sourceInfo(place: Place) {
  return { data: { type: 'info', id: '/', attributes: baseInfo(place, false) }, meta: meta(place) };
}

export function indexInfo(place: Place, ctx: AppContext) {
  return {
    data: {
      type: 'info',
      id: '/',
      attributes: baseInfo(place, true),
      relationships: { default: { data: { type: 'links', id: ctx.catalog.optimadeFirst ?? '' } } },
    },
    meta: meta(place),
  };
}

export function structuresInfo(place: Place) {
  const properties: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(STRUCTURE_PROPERTIES)) {
    if (p.since12 === true) continue;
    properties[name] = {
      description: p.description,
      type: p.type,
      unit: p.unit ?? null,
      sortable: p.sortable,
      queryable: p.column !== undefined,
      'x-optimade-type': p.type,
      'x-optimade-unit': p.unit ?? 'inapplicable',
      'x-optimade-implementation': {
        sortable: p.sortable,
        'query-support': p.column === undefined ? 'none' : 'all mandatory',
      },
    };
  }
  return {
    data: {
      type: 'info',
      id: 'structures',
      description: 'AiiDA StructureData nodes as OPTIMADE structures',
      properties,
      formats: ['json'],
      output_fields_by_format: { json: Object.keys(properties) },
    },
    meta: meta(place),
  };
}

const link = (id: string, name: string, description: string, baseUrl: string, type: string) => ({
  type: 'links',
  id,
  attributes: { name, description, base_url: baseUrl, homepage: null, link_type: type },
});

const rootLink = (place: Place) =>
  link('index', 'Quarry index', 'The index of every source this Quarry serves', indexBase(place), 'root');

/**
 * Every source served, each a child database at its own path (`/<name>/optimade/v1`). The catalog knows them
 * without opening them: a portal of thousands lists them all.
 */
export function childDatabases(ctx: AppContext) {
  return ctx.catalog.list().map((source) => ({ source, mount: `/${source.name}` }));
}

export function sourceLinks(place: Place, params: URLSearchParams) {
  return linksListing(place, [rootLink(place)], params);
}

export function indexLinks(ctx: AppContext, place: Place, params: URLSearchParams) {
  const children = childDatabases(ctx).map(({ source, mount }) =>
    link(
      source.name,
      source.name,
      `${source.kind} ${source.name}${source.aiidaVersion === null ? '' : ` (AiiDA ${source.aiidaVersion})`} served by Quarry`,
      sourceBase(place, mount),
      'child',
    ),
  );
  // A portal's database over every source is a child too (all-sources.ts), after the sources.
  const all = isPortal(ctx)
    ? [
        link(
          ALL_LINK_ID,
          'All sources',
          'The structures of every source served by this Quarry, as one database (ids are <source>:<uuid>)',
          `${place.origin}/optimade/all/v1`,
          'child',
        ),
      ]
    : [];
  return linksListing(place, [rootLink(place), ...children, ...all], params);
}

/** A `links` listing: the links a filter keeps (links-filter.ts), a page of them, and the next page's URL. */
function linksListing(place: Place, links: ReturnType<typeof link>[], params: URLSearchParams) {
  const text = params.get('filter');
  if (params.get('sort') !== null && params.get('sort') !== '') throw notImplemented('Sorting links', 'sort');
  const kept = text === null || text.trim() === '' ? links : filterLinks(links, parseFilter(text));
  const { limit, offset } = pagingParams(params);
  const data = kept.slice(offset, offset + limit);
  const more = offset + data.length < kept.length;
  let next: string | null = null;
  if (more) {
    const query = new URLSearchParams(params);
    query.delete('page_number');
    query.set('page_offset', String(offset + limit));
    query.set('page_limit', String(limit));
    next = `${place.base}/links?${query.toString()}`;
  }
  return {
    data,
    meta: meta(place, { dataReturned: kept.length, dataAvailable: links.length, more }),
    links: { next },
  };
}
