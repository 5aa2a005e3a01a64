/**
 * The structures of every source as one listing: each source's side table is asked in turn (a few at once,
 * each source leased and its table held only while it is read, so that the portal's bounds on open sources and
 * open files hold), and the answers are put together. Counts are summed; a page is found without reading more
 * than it needs: in the default order (sources by name, then each source's own order) from the counts alone,
 * and in a requested order by merging each source's first rows of that order, compared as SQLite compares
 * them (so that the union is ordered exactly as one table holding every structure would be).
 */
import type { AppContext } from '../http/context.js';
import type { Lease } from '../sources/catalog.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { OptimadeError } from './errors.js';
import { checkFilterCost } from './filter-bounds.js';
import { compileFilter, type CompiledFilter } from './filter-sql.js';
import { parseFilter } from './filter-ast.js';
import type { ListingParams } from './params.js';
import type { SideTable } from './side-table.js';
import { keptRows } from './structures.js';
import type { SideTables } from './tables.js';

/** Sources read at once: each holds a lease, its table's files, and a statement on the shared query processes. */
const AT_ONCE = 4;

/**
 * The deepest entry a listing in a requested order reaches: each source's first `offset + limit` rows of that
 * order are merged, so a page costs that many rows per source. The default order has no such bound.
 */
export const MAX_SORTED_DEPTH = 10_000;

/** Separates a source's name from the node's UUID in an id (no source name holds one, src/sources/names.ts). */
export const ID_SEPARATOR = ':';

/** The links id of this database in the index: a `/` is in no source's name, so it is no child's id. */
export const ALL_LINK_ID = 'optimade/all';

/** A portal: a catalog that changes while serving, or more than one source. */
export const isPortal = (ctx: AppContext) => ctx.catalog.dynamic || ctx.catalog.size > 1;

export const allId = (source: string, uuid: string) => `${source}${ID_SEPARATOR}${uuid}`;

/** The source and the UUID an id names, or undefined when it names none. */
export function splitId(id: string): { source: string; uuid: string } | undefined {
  const at = id.indexOf(ID_SEPARATOR);
  if (at <= 0 || at === id.length - 1) return undefined;
  return { source: id.slice(0, at), uuid: id.slice(at + 1) };
}

/** The SQL of a source's `id` (its name before the UUID): names are URL-safe, never a quote among them. */
export function idSqlOf(source: string): string {
  if (!/^[A-Za-z0-9._~-]+$/.test(source)) throw new Error(`a source name that is not URL-safe: ${source}`);
  return `('${source}${ID_SEPARATOR}' || s.uuid)`;
}

export interface SourceTable {
  name: string;
  table: SideTable;
  backend: StorageBackend;
  budget: QueryBudget & { limitMs: number };
}

export interface Fanout {
  ctx: AppContext;
  tables: SideTables;
  deadline: number;
  needsSymmetry: boolean;
  /** Tells of a source left out (it cannot be opened), logged by the caller. */
  onSkipped: (name: string, error: unknown) => void;
}

/** The names of the sources in the union's order: by name, as no catalog order is stable across restarts. */
export function unionOrder(ctx: AppContext): string[] {
  return ctx.catalog.names().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * `read` on the side table of each source of `names`, AT_ONCE at a time, in their order; a source that cannot be
 * opened (a damaged archive) is left out with a warning, a source that is busy (503) or a bad request (4xx)
 * stops the answer as it would one source's.
 */
export async function eachSource<T>(
  fan: Fanout,
  names: string[],
  read: (source: SourceTable) => Promise<T>,
): Promise<{ results: (T | undefined)[]; warnings: string[] }> {
  const results: (T | undefined)[] = new Array(names.length).fill(undefined);
  const warnings: string[] = [];
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < names.length) {
      const at = next++;
      const name = names[at]!;
      try {
        results[at] = await readOne(fan, name, read);
      } catch (error) {
        if (leftOut(error)) {
          warnings.push(`the source ${name} is left out: ${(error as Error).message}`);
          fan.onSkipped(name, error);
        } else failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, names.length) }, worker));
  if (failed !== undefined) throw failed;
  return { results, warnings };
}

async function readOne<T>(fan: Fanout, name: string, read: (source: SourceTable) => Promise<T>) {
  const lease: Lease | undefined = await fan.ctx.catalog.acquire(name);
  // Removed since the names were taken: not part of the union any more.
  if (lease === undefined) return undefined;
  try {
    const own = fan.ctx.catalog.spec(name)?.queryTimeout;
    const limitMs = own === undefined ? fan.ctx.queryTimeoutMs : own * 1000;
    const budget = { deadline: Math.min(fan.deadline, Date.now() + limitMs), limitMs, steady: true };
    return await fan.tables.read(
      lease.backend,
      budget.deadline,
      limitMs,
      (table) => read({ name, table, backend: lease.backend, budget }),
      fan.needsSymmetry,
    );
  } finally {
    lease.release();
  }
}

/**
 * A failure that is the source's own and lasting (it cannot be opened, its table cannot be built): the union is
 * answered without it. Refusals of the request (4xx), and anything that passes by itself (503), are not.
 */
function leftOut(error: unknown): boolean {
  if (error instanceof OptimadeError) return false;
  const status = (error as { status?: unknown }).status;
  return status === undefined || status === 502;
}

/** The filter of a request compiled for one source, whose `id` is its name before the UUID. */
export function filterFor(text: string | undefined, source: string): CompiledFilter | undefined {
  return text === undefined ? undefined : compileFilter(parseFilter(text), idSqlOf(source));
}

/** How many of a source's structures a filter matches, and how many it has. */
export async function countOf(
  source: SourceTable,
  filter: CompiledFilter | undefined,
  listValues: number,
): Promise<{ matched: number; available: number }> {
  const { table, budget } = source;
  checkFilterCost(listValues, table.count);
  if (filter === undefined) return { matched: table.count, available: table.count };
  const statement = filter.counted ?? {
    sql: `SELECT count(*) FROM structures AS s WHERE ${filter.where}`,
    params: filter.params,
  };
  const rows = await keptRows(table, statement, budget);
  return { matched: Number(rows[0]![0]), available: table.count };
}

/** The ORDER BY of a listing on one table: its sort keys, then the table's own order. */
function orderOf(listing: ListingParams, source: string): string {
  return [
    ...listing.sort.map((s) => `${sortSql(s, source)} ${s.descending ? 'DESC' : 'ASC'}`),
    's.sid ASC',
  ].join(', ');
}

/** A sort key's SQL: `id` is the source's name before the UUID, which orders a source's rows as the UUID does. */
const sortSql = (key: ListingParams['sort'][number], source: string) =>
  key.name === 'id' ? idSqlOf(source) : `s.${key.column}`;

/** The sids of a source's matches from `offset`, at most `limit`, in the listing's order. */
export async function sidsOf(
  source: SourceTable,
  filter: CompiledFilter | undefined,
  listing: ListingParams,
  offset: number,
  limit: number,
): Promise<number[]> {
  const where = filter === undefined ? '' : ` WHERE ${filter.where}`;
  const rows = await keptRows(
    source.table,
    {
      sql: `SELECT s.sid FROM structures AS s${where} ORDER BY ${orderOf(listing, source.name)} LIMIT ? OFFSET ?`,
      params: [...(filter?.params ?? []), limit, offset],
    },
    source.budget,
  );
  return rows.map((r) => Number(r[0]));
}

/** A source's first `limit` matches in the listing's order, with their sort keys, for the merge. */
export async function keyedRows(
  source: SourceTable,
  filter: CompiledFilter | undefined,
  listing: ListingParams,
  limit: number,
): Promise<{ keys: unknown[]; sid: number }[]> {
  const where = filter === undefined ? '' : ` WHERE ${filter.where}`;
  const keys = listing.sort.map((s) => sortSql(s, source.name));
  const rows = await keptRows(
    source.table,
    {
      sql: `SELECT ${[...keys, 's.sid'].join(', ')} FROM structures AS s${where} ORDER BY ${orderOf(listing, source.name)} LIMIT ?`,
      params: [...(filter?.params ?? []), limit],
    },
    source.budget,
  );
  return rows.map((r) => ({ keys: r.slice(0, keys.length), sid: Number(r[keys.length]) }));
}

/**
 * Two values of a column as SQLite orders them (the BINARY collation): NULL first, then numbers, then text by
 * its UTF-8 bytes (which JavaScript's own comparison, by UTF-16 units, gets wrong past U+FFFF).
 */
export function compareSqlValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'string' ? 2 : 1);
  const [ra, rb] = [rank(a), rank(b)];
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) {
    const [x, y] = [a as number | bigint, b as number | bigint];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const [x, y] = [a as string, b as string];
  // UTF-16 units order as code points (and so as UTF-8 bytes) but for surrogates: only those need the bytes.
  if (!ASTRAL.test(x) && !ASTRAL.test(y)) return x < y ? -1 : x > y ? 1 : 0;
  return Buffer.compare(Buffer.from(x), Buffer.from(y));
}

const ASTRAL = /[\uD800-\uDFFF]/;

/**
 * Entries `offset` to `offset + limit` of the union in the listing's order, as (source's place, sid): each
 * source's rows are in that order already (ties by sid), so a k-way merge, ties broken by the source's place,
 * is the order of one table holding them all.
 */
export function mergePage(
  perSource: ({ keys: unknown[]; sid: number }[] | undefined)[],
  listing: ListingParams,
  offset: number,
  limit: number,
): { source: number; sid: number }[] {
  const heads = perSource.map(() => 0);
  const out: { source: number; sid: number }[] = [];
  const before = (i: number, j: number): boolean => {
    const [x, y] = [perSource[i]![heads[i]!]!, perSource[j]![heads[j]!]!];
    for (let k = 0; k < listing.sort.length; k++) {
      const order = compareSqlValues(x.keys[k], y.keys[k]);
      if (order !== 0) return listing.sort[k]!.descending ? order > 0 : order < 0;
    }
    return i < j;
  };
  for (let taken = 0; taken < offset + limit; taken++) {
    let best = -1;
    for (let i = 0; i < perSource.length; i++) {
      if (perSource[i] === undefined || heads[i]! >= perSource[i]!.length) continue;
      if (best === -1 || before(i, best)) best = i;
    }
    if (best === -1) break;
    if (taken >= offset) out.push({ source: best, sid: perSource[best]![heads[best]!]!.sid });
    heads[best] = heads[best]! + 1;
  }
  return out;
}

/** A sorted listing past MAX_SORTED_DEPTH: refused before anything is read. */
export function checkSortedDepth(listing: ListingParams): void {
  if (listing.sort.length === 0 || listing.offset + listing.limit <= MAX_SORTED_DEPTH) return;
  throw new OptimadeError(
    403,
    'Forbidden',
    `over every source, a listing with sort reaches its first ${MAX_SORTED_DEPTH} entries at most (page_offset + page_limit); narrow the filter, leave sort out (the default order pages to the end), or ask a source's own database`,
    'page_offset',
  );
}
