/** `/structures` and `/structures/{id}`: pages of the side table, filtered and sorted in SQL. */
import type { AppContext } from '../http/context.js';
import type { QueryBudget } from '../storage/types.js';
import { OptimadeError } from './errors.js';
import { parseFilter } from './filter-ast.js';
import { compileFilter, type CompiledFilter } from './filter-sql.js';
import { meta, type Place } from './envelope.js';
import { listingParams, type ListingParams } from './params.js';
import { STRUCTURE_PROPERTIES } from './properties.js';
import type { SideTable } from './side-table.js';

/** The filter of a request compiled before anything is read, so that a bad one is answered at once. */
export function prepareListing(params: URLSearchParams): { listing: ListingParams; filter?: CompiledFilter } {
  const listing = listingParams(params);
  return {
    listing,
    filter: listing.filter === undefined ? undefined : compileFilter(parseFilter(listing.filter)),
  };
}

export async function listStructures(
  ctx: AppContext,
  place: Place,
  table: SideTable,
  params: URLSearchParams,
  prepared: ReturnType<typeof prepareListing>,
  budget: QueryBudget,
): Promise<Record<string, unknown>> {
  const { listing, filter } = prepared;
  const where = filter === undefined ? '' : ` WHERE ${filter.where}`;
  const order = [
    ...listing.sort.map((s) => `s.${s.column} ${s.descending ? 'DESC' : 'ASC'}`),
    's.sid ASC',
  ].join(', ');
  const rows = await table.db.values(
    {
      sql: `SELECT s.doc FROM structures AS s${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
      params: [...(filter?.params ?? []), listing.limit, listing.offset],
    },
    budget,
  );
  const total =
    filter === undefined
      ? table.count
      : Number(
          (
            await table.db.values(
              { sql: `SELECT count(*) FROM structures AS s${where}`, params: filter.params },
              budget,
            )
          )[0]![0],
        );
  const more = listing.offset + rows.length < total;
  const warnings = (filter?.foreign ?? []).map(
    (name) => `${name} is a property of another provider; it is treated as unknown (null) here`,
  );
  return {
    data: rows.map((r) => resource(ctx, place, String(r[0]), listing.fields)),
    meta: meta(place, { dataReturned: total, dataAvailable: table.count, more, warnings }),
    links: { next: more ? nextPage(place, params, listing) : null },
  };
}

export async function oneStructure(
  ctx: AppContext,
  place: Place,
  table: SideTable,
  id: string,
  fields: string[] | undefined,
  budget: QueryBudget,
): Promise<Record<string, unknown>> {
  const rows = await table.db.values(
    { sql: 'SELECT doc FROM structures WHERE uuid = ?', params: [id], pointLookup: true },
    budget,
  );
  if (rows.length === 0)
    throw new OptimadeError(
      404,
      'Not Found',
      `no structure has the id ${JSON.stringify(id)} (ids are node UUIDs)`,
    );
  return {
    data: resource(ctx, place, String(rows[0]![0]), fields),
    meta: meta(place, { dataReturned: 1, dataAvailable: table.count }),
    links: { self: `${place.base}/structures/${encodeURIComponent(id)}` },
  };
}

/** A side-table document as a resource object, with the links only a request's URL can give. */
function resource(ctx: AppContext, place: Place, doc: string, fields: string[] | undefined) {
  const properties = JSON.parse(doc) as Record<string, unknown>;
  const uuid = properties.immutable_id as string;
  properties._quarry_url = `${place.origin}${place.mount}${ctx.prefix}/nodes/${uuid}`;
  let attributes: Record<string, unknown>;
  if (fields === undefined) {
    attributes = properties;
  } else {
    attributes = {};
    for (const name of fields)
      if (name !== 'id' && name !== 'type') attributes[name] = properties[name] ?? null;
  }
  return {
    id: uuid,
    type: 'structures',
    attributes,
    links: { self: `${place.base}/structures/${uuid}` },
  };
}

/** The next page's URL: the request's own, with page_offset moved on (and page_number dropped). */
function nextPage(place: Place, params: URLSearchParams, listing: ListingParams): string {
  const next = new URLSearchParams(params);
  next.delete('page_number');
  next.set('page_offset', String(listing.offset + listing.limit));
  next.set('page_limit', String(listing.limit));
  return `${place.base}/structures?${next.toString()}`;
}

export const DEFAULT_FIELDS = Object.keys(STRUCTURE_PROPERTIES).filter(
  (k) => STRUCTURE_PROPERTIES[k]!.default,
);
