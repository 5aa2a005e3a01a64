/** `/structures` and `/structures/{id}`: pages of the side table, filtered and sorted in SQL. */
import type { AppContext } from '../http/context.js';
import { KeptMap } from '../util/kept-map.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { OptimadeError } from './errors.js';
import { parseFilter, type FilterNode } from './filter-ast.js';
import { checkFilterCost, listValuesOf } from './filter-bounds.js';
import { compileFilter, type CompiledFilter } from './filter-sql.js';
import { meta, type Place } from './envelope.js';
import { listingParams, type ListingParams } from './params.js';
import { STRUCTURE_PROPERTIES } from './properties.js';
import type { SideTable } from './side-table.js';
import { nodeOf, structuresByPk, SYMMETRY_COLUMNS } from './side-rows.js';
import { withSites } from './cif-rows.js';
import { entryOf, type StructureProperties } from './structure-entry.js';

/** The filter of a request compiled before anything is read, so that a bad one is answered at once. */
export function prepareListing(params: URLSearchParams): {
  listing: ListingParams;
  filter?: CompiledFilter;
  /** Values after HAS on lists read structure by structure: its cost, checked once the source's size is known. */
  listValues: number;
  /** Its filter, sort or response_fields reads a property of the symmetry pass (side-symmetry.ts). */
  needsSymmetry: boolean;
} {
  const listing = listingParams(params);
  const tree = listing.filter === undefined ? undefined : parseFilter(listing.filter);
  const named = [...(tree === undefined ? [] : propertiesOf(tree)), ...listing.sort.map((s) => s.name)];
  return {
    listing,
    filter: tree === undefined ? undefined : compileFilter(tree),
    listValues: tree === undefined ? 0 : listValuesOf(tree),
    needsSymmetry: readsSymmetry([...named, ...(listing.fields ?? [])]),
  };
}

const SYMMETRY_PROPERTIES = new Set<string>(SYMMETRY_COLUMNS);

/** Whether one of the properties `names` is found by the symmetry pass. */
export function readsSymmetry(names: string[]): boolean {
  return names.some((name) => SYMMETRY_PROPERTIES.has(name));
}

/** The first names of the properties a filter reads (`a` of `a.b`), wherever they are in it. */
function propertiesOf(tree: FilterNode): string[] {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const node = value as Record<string, unknown>;
    if (node.kind === 'property') out.push(String((node.path as string[])[0]));
    if (Array.isArray(node.property)) out.push(String(node.property[0]));
    if (Array.isArray(node.properties)) for (const p of node.properties as string[][]) out.push(String(p[0]));
    for (const [key, child] of Object.entries(node)) if (key !== 'property' && key !== 'path') visit(child);
  };
  visit(tree);
  return out;
}

export async function listStructures(
  ctx: AppContext,
  place: Place,
  backend: StorageBackend,
  table: SideTable,
  params: URLSearchParams,
  prepared: ReturnType<typeof prepareListing>,
  budget: QueryBudget,
): Promise<Record<string, unknown>> {
  const { listing, filter } = prepared;
  checkFilterCost(prepared.listValues, table.count);
  const where = filter === undefined ? '' : ` WHERE ${filter.where}`;
  const order = [
    ...listing.sort.map((s) => `s.${s.column} ${s.descending ? 'DESC' : 'ASC'}`),
    's.sid ASC',
  ].join(', ');
  // The count runs beside the page (the table's pool has two query processes).
  const counting =
    filter === undefined ? Promise.resolve(table.count) : matches(table, where, filter, budget);
  counting.catch(() => undefined);
  const rows = await keptRows(
    table,
    {
      sql: `SELECT s.sid FROM structures AS s${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
      params: [...(filter?.params ?? []), listing.limit, listing.offset],
    },
    budget,
  );
  const total = await counting;
  const more = listing.offset + rows.length < total;
  const warnings = (filter?.foreign ?? []).map(
    (name) => `${name} is a property of another provider; it is treated as unknown (null) here`,
  );
  return {
    data: (
      await entriesOf(
        backend,
        table,
        rows.map((r) => Number(r[0])),
        budget,
      )
    ).map((e) => resource(ctx, place, e, listing.fields)),
    meta: meta(place, { dataReturned: total, dataAvailable: table.count, more, warnings }),
    links: { next: more ? nextPage(place, params, listing) : null },
  };
}

/**
 * The rows of a statement on a side table, kept once read: a table never changes (a live source's new data is
 * a new table), so a page or a count asked again is the same. Paging through 10^5 matches counts them at the
 * first page only, and a first page asked by many clients is read once.
 */
const ROWS_KEPT = 4_000;
const kept = new WeakMap<SideTable, KeptMap<Promise<unknown[][]>>>();

export function keptRows(
  table: SideTable,
  statement: { sql: string; params: unknown[] },
  budget: QueryBudget,
): Promise<unknown[][]> {
  let rows = kept.get(table);
  if (rows === undefined) kept.set(table, (rows = new KeptMap(ROWS_KEPT)));
  const key = JSON.stringify([statement.sql, statement.params]);
  const found = rows.get(key);
  if (found !== undefined) return found;
  const read = table.db.values(statement, budget);
  // A statement that failed (a time limit) is run again by the next request, not remembered.
  read.catch(() => rows.delete(key));
  return rows.set(key, read);
}

/** How many structures a filter matches (from the counts per value where the filter allows, see filter-sql.ts). */
async function matches(
  table: SideTable,
  where: string,
  filter: CompiledFilter,
  budget: QueryBudget,
): Promise<number> {
  const statement = filter.counted ?? {
    sql: `SELECT count(*) FROM structures AS s${where}`,
    params: filter.params,
  };
  return Number((await keptRows(table, statement, budget))[0]![0]);
}

export async function oneStructure(
  ctx: AppContext,
  place: Place,
  backend: StorageBackend,
  table: SideTable,
  id: string,
  fields: string[] | undefined,
  budget: QueryBudget,
): Promise<Record<string, unknown>> {
  const rows = await table.db.values(
    { sql: 'SELECT sid FROM structures WHERE uuid = ?', params: [id], pointLookup: true },
    budget,
  );
  const [entry] = rows.length === 0 ? [] : await entriesOf(backend, table, [Number(rows[0]![0])], budget);
  if (entry === undefined)
    throw new OptimadeError(
      404,
      'Not Found',
      `no structure has the id ${JSON.stringify(id)} (ids are node UUIDs)`,
    );
  return {
    data: resource(ctx, place, entry, fields),
    meta: meta(place, { dataReturned: 1, dataAvailable: table.count }),
    links: { self: `${place.base}/structures/${encodeURIComponent(id)}` },
  };
}

/**
 * Entries computed lately, per table: first pages are asked again and again, and their structures are the same
 * until the table is (a live source's changed structures make a new table).
 */
const ENTRIES_KEPT = 5_000;
type Entry = StructureProperties & Record<string, unknown>;
const entries = new WeakMap<SideTable, KeptMap<Entry>>();

/**
 * The entries of the structures `pks`, in that order, computed from the source's nodes as the side table was:
 * the table finds and orders them, the nodes give their values.
 */
export async function entriesOf(
  backend: StorageBackend,
  table: SideTable,
  pks: number[],
  budget: QueryBudget,
): Promise<Entry[]> {
  let kept = entries.get(table);
  if (kept === undefined) entries.set(table, (kept = new KeptMap(ENTRIES_KEPT)));
  const missing = pks.filter((pk) => kept.get(String(pk)) === undefined);
  if (missing.length > 0) {
    // A table whose symmetry is pending has none to give: its entries leave those properties out.
    const [rows, found] = await Promise.all([
      backend.db.values(structuresByPk(backend, missing), budget),
      table.symmetry === 'complete' ? symmetries(table, missing, budget) : new Map(),
    ]);
    for (const read of rows) {
      // A CifData's sites come from its file.
      const row = await withSites(backend, read);
      const entry = row === undefined ? undefined : entryOf(nodeOf(row));
      if (entry !== undefined) kept.set(String(read[0]), { ...entry, ...found.get(Number(read[0])) });
    }
  }
  // A structure deleted from a live source since the table was built is left out of this page.
  return pks.flatMap((pk) => kept.get(String(pk)) ?? []);
}

/** The symmetry the build found for the structures `pks` (symmetry.ts), as properties, by pk. */
async function symmetries(
  table: SideTable,
  pks: number[],
  budget: QueryBudget,
): Promise<Map<number, Record<string, unknown>>> {
  const rows = await table.db.values(
    {
      sql: `SELECT sid, ${SYMMETRY_COLUMNS.join(', ')} FROM structures WHERE sid IN (${pks.map(() => '?').join(', ')})`,
      params: pks,
    },
    budget,
  );
  return new Map(
    rows.map(([sid, number, hm, hall, operations, wyckoffs]) => [
      Number(sid),
      {
        space_group_it_number: number === null ? null : Number(number),
        space_group_symbol_hermann_mauguin: hm,
        space_group_symbol_hall: hall,
        space_group_symmetry_operations_xyz: operations === null ? null : JSON.parse(String(operations)),
        wyckoff_positions: wyckoffs === null ? null : JSON.parse(String(wyckoffs)),
      },
    ]),
  );
}

/** An entry as a resource object, with the links only a request's URL can give. */
export function resource(
  ctx: AppContext,
  place: Place,
  entry: StructureProperties,
  fields: string[] | undefined,
) {
  const properties: Record<string, unknown> = { ...entry };
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
export function nextPage(place: Place, params: URLSearchParams, listing: ListingParams): string {
  const next = new URLSearchParams(params);
  next.delete('page_number');
  next.set('page_offset', String(listing.offset + listing.limit));
  next.set('page_limit', String(listing.limit));
  return `${place.base}/structures?${next.toString()}`;
}

export const DEFAULT_FIELDS = Object.keys(STRUCTURE_PROPERTIES).filter(
  (k) => STRUCTURE_PROPERTIES[k]!.default,
);
