/**
 * GET on a collection (`/nodes/`, `/users/page/2/`, `/groups/<id>/`): the reference's BaseTranslator and
 * NodeTranslator flow, expressed as one QueryBuilder dictionary for the query engine.
 */
import { fullTypeFilters, FullTypeError } from '../domain/full-type.js';
import type { ParsedQueryString, QsFilter } from '../querystring/types.js';
import { Param, type PlanHints } from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';
import type { CollectionSpec } from './collections.js';
import { PK, queryCount, queryRows, windowed } from './engine.js';
import { badRequest, inputError } from './errors.js';
import { recordFormatter } from './format.js';
import { nodeTypeCount } from './node-summaries.js';
import { idFilter, isCompleteUuid, resolveId, theOne } from './identifiers.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { KeptMap } from '../util/kept-map.js';
import { derivedFrom } from '../util/derived.js';
import { carryMark } from '../util/exact-json.js';
import { checkLimitCap, checkWindowParams, limitWindow, pageWindow, type PageLinks } from './pagination.js';

export interface ListRequest {
  spec: CollectionSpec;
  /** `<id>` of a single-record path, as given. */
  id?: string | number;
  /** Page number of a `/page/` path (1 for `/page/`). */
  page?: number;
  qs: ParsedQueryString;
  /** `/nodes/<id>/links/incoming|outgoing/`: list the nodes linked to the one named by `id`. */
  links?: 'incoming' | 'outgoing';
}

export interface ListResult {
  data: Record<string, unknown[]>;
  total: number;
  pages?: PageLinks;
}

export interface ListLimits {
  /** The default and maximum number of rows of one answer (the reference's LIMIT_DEFAULT, 400). */
  limitDefault: number;
  perpageDefault: number;
}

export async function listCollection(
  backend: StorageBackend,
  req: ListRequest,
  limits: ListLimits,
): Promise<ListResult> {
  const { spec, qs } = req;
  const isNodes = spec.name === 'nodes';
  checkWindowParams({ page: req.page, perpage: qs.perpage, limit: qs.limit, offset: qs.offset });

  const shape = listShape(spec, qs);
  const filters = shape.filters;
  const main = spec.name;
  let pk: number | undefined;
  // A single record is selected by its id in the query itself (one query, not two); its links and windows
  // other than the first need the pk first.
  const direct =
    req.id !== undefined && !req.links && req.page === undefined && !qs.offset && qs.limit === undefined;
  // So are the links of a node named by a complete UUID (unique): only an empty answer asks whether the node
  // exists. A page of links checks the node first, as the reference does before the page number.
  const linksByUuid =
    req.links !== undefined && req.page === undefined && isCompleteUuid(String(req.id ?? ''));
  if (req.id !== undefined) {
    if (!req.links && Object.keys(filters).length > 0) {
      throw inputError('selecting a specific id does not allow to specify filters');
    }
    if (!direct && !linksByUuid) pk = await resolveId(backend, spec, req.id);
  }

  // The pk or id goes in as a Param: every node's request of this shape shares one kept plan.
  const byId = direct || linksByUuid ? idFilter(spec, req.id as string | number) : undefined;
  // So does the type of a page read from the copy's table of the types in creation order: a type nobody asked
  // before finds its plan compiled and its statement known.
  const nodeType = typeOrdered(backend, req, shape);
  const values =
    nodeType !== undefined ? { [NODE_TYPE.name]: nodeType } : pk === undefined ? byId?.values : { pk };
  const queried = nodeType === undefined ? shape : typeBound(shape);
  // Requests of one shape (query string, collection, kind of id) share one frozen dictionary.
  const variant = `${req.links ?? ''}|${pk === undefined ? '' : 'pk'}|${byId?.shared ?? ''}`;
  const build = () => listQuery(spec, queried, req.links, pk !== undefined, byId?.filter);
  const dict = byId && !byId.shared ? build() : derivedFrom(queried, variant, build);
  const { tag, edgeTag } = tagsOf(main, req.links);
  // A page needs the total first (it checks the page number and links to the last page). Otherwise the rows
  // come first, and a window that is not full tells the total without counting.
  let total =
    req.page === undefined
      ? undefined
      : ((await typeCount(backend, req, shape.filters)) ?? (await queryCount(backend, dict, { values })));
  const window =
    total !== undefined
      ? pageWindow(req.page as number, qs.perpage, total, limits.perpageDefault)
      : limitWindow(qs.limit, qs.offset, limits.limitDefault);
  checkLimitCap(window.limit, limits.limitDefault);

  const hints =
    nodeType !== undefined
      ? { nodeTypeOrder: backend.nodeTypeOrder }
      : await planHints(backend, req, total, dict, tag);
  const rows = direct
    ? [theOne(await queryRows(backend, windowed(dict, 2), { values }), spec, req.id as string | number)]
    : await queryRows(backend, windowed(dict, window.limit, window.offset), { hints, values });
  if (linksByUuid && rows.length === 0) await resolveId(backend, spec, req.id as string);
  if (total === undefined) {
    const complete = rows.length < window.limit && (rows.length > 0 || window.offset === 0);
    total = complete ? window.offset + rows.length : await queryCount(backend, dict, { values });
  }
  const format = recordFormatter(isNodes);
  const formatted = rows.map((row) => {
    const record = row[tag] ?? {};
    if (req.links) {
      const edge = row[edgeTag] ?? {};
      record.link_label = edge.label;
      record.link_type = edge.type;
    }
    return format(isNodes ? nestProjected(record, qs) : record);
  });
  const key = req.links ?? main;
  return { data: { [key]: formatted }, total, pages: window.pages };
}

/**
 * The QueryBuilder dictionary of a listing, frozen. Linked nodes are a second vertex joined through the links
 * table; the query-string filters, orders and projections apply to them, the id to the node the path names.
 */
function listQuery(
  spec: CollectionSpec,
  shape: ListShape,
  links: ListRequest['links'],
  byPk: boolean,
  idCondition: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const main = spec.name;
  const { tag, edgeTag } = tagsOf(main, links);
  const path: Record<string, unknown>[] = [{ ...spec.vertex, tag: main }];
  const filters: Record<string, unknown> = {};
  const project: Record<string, unknown> = {};
  if (links) {
    path.push({ ...spec.vertex, tag, joining_keyword: tag, joining_value: main, edge_tag: edgeTag });
    filters[main] = idCondition ?? { id: { '==': PK } };
    filters[tag] = { ...spec.typeFilters, ...shape.filters };
    project[edgeTag] = ['label', 'type'];
  } else {
    filters[main] = {
      ...spec.typeFilters,
      ...shape.filters,
      ...(byPk ? { id: { '==': PK } } : {}),
      ...idCondition,
    };
  }
  project[tag] = shape.projections;
  return deepFreeze({ path, filters, project, order_by: [{ [tag]: shape.order }] });
}

/** The tag of the listed records (the linked nodes of a links listing) and of their links. */
function tagsOf(main: string, links: ListRequest['links']): { tag: string; edgeTag: string } {
  const tag = links ? (links === 'incoming' ? 'with_outgoing' : 'with_incoming') : main;
  return { tag, edgeTag: `${main}--${tag}` };
}

/** What a query string makes of a listing's filters, projections and order. */
interface ListShape {
  filters: Record<string, unknown>;
  projections: readonly string[];
  order: Record<string, { order: 'asc' | 'desc' }>[];
}

/**
 * Shapes worked out once per query string (kept and frozen by the HTTP layer) and collection; frozen in turn,
 * so that the query engine knows them by their identity instead of writing them out at every request.
 */
const shapes = new WeakMap<ParsedQueryString, Map<string, ListShape>>();

function listShape(spec: CollectionSpec, qs: ParsedQueryString): ListShape {
  let byCollection = shapes.get(qs);
  if (!byCollection) shapes.set(qs, (byCollection = new Map()));
  let shape = byCollection.get(spec.name);
  if (!shape) {
    const isNodes = spec.name === 'nodes';
    const filters = renamePk(qs.filters);
    if (isNodes && qs.fullType !== undefined) Object.assign(filters, parseFullType(qs.fullType));
    shape = deepFreeze({
      filters,
      projections: isNodes ? nodeProjections(spec, qs) : spec.defaultProjections,
      order: orderSpec(qs.orderby),
    });
    byCollection.set(spec.name, shape);
  }
  return shape;
}

/**
 * The count of a listing of nodes filtered by one node type alone, from the node-wide type counts when they are
 * kept: at 10^6 nodes, counting the nodes of a common type nobody asked before took longer than its page.
 */
async function typeCount(
  backend: StorageBackend,
  req: ListRequest,
  filters: Record<string, unknown>,
): Promise<number | undefined> {
  const nodeType = oneNodeType(req, filters);
  return nodeType === undefined ? undefined : nodeTypeCount(backend, nodeType);
}

/** The node type a listing of nodes is filtered by, when that is its only filter. */
function oneNodeType(req: ListRequest, filters: Record<string, unknown>): string | undefined {
  if (req.spec.name !== 'nodes' || req.links || req.id !== undefined) return undefined;
  const keys = Object.keys(filters);
  if (keys.length !== 1 || keys[0] !== 'node_type') return undefined;
  const condition = filters.node_type as Record<string, unknown>;
  const nodeType = condition['=='];
  return Object.keys(condition).length === 1 && typeof nodeType === 'string' ? nodeType : undefined;
}

/** The node type of a page read from the copy's table of the types in creation order, bound when the plan runs. */
const NODE_TYPE = new Param('node_type');

/**
 * The node type of a page of nodes of that one type by -ctime (`node_type="T"`, as REST clients ask) on a storage
 * that keeps the nodes of each type in that order (an archive's copy): its rows are read from there.
 */
function typeOrdered(backend: StorageBackend, req: ListRequest, shape: ListShape): string | undefined {
  if (req.page === undefined || backend.db.dialect !== 'sqlite' || backend.nodeTypeOrder === undefined)
    return undefined;
  const [first, second, ...more] = shape.order;
  if (more.length > 0 || first?.ctime?.order !== 'desc' || second?.id?.order !== 'asc') return undefined;
  return oneNodeType(req, shape.filters);
}

/**
 * Shapes with their node type bound, by their projections and order (the node type is their only filter): the
 * pages of every type share one, so a type nobody asked before finds its query, window and plan key made (their
 * identity written anew cost a fifth of such a page's time in the serving process).
 */
const boundShapes = new KeptMap<ListShape>(256);

/** The shape with its node type bound when the plan runs (one frozen shape for the pages of every type). */
function typeBound(shape: ListShape): ListShape {
  return derivedFrom(shape, 'node_type bound', () => {
    const key = JSON.stringify([shape.projections, shape.order]);
    return (
      boundShapes.get(key) ??
      boundShapes.set(key, deepFreeze({ ...shape, filters: { node_type: { '==': NODE_TYPE } } }))
    );
  });
}

/** Below this share of the collection, a filter's index finds the rows faster than a scan in order. */
const ORDERED_SCAN_SHARE = 0.05;

/**
 * A page ordered by creation time over a large share of the nodes (say all processes) is read in index
 * order; SQLite would otherwise collect every match through the type index and sort them (0.5 s at 10^6
 * nodes instead of a fraction of a millisecond). The share comes from counts that are kept anyway.
 */
async function planHints(
  backend: StorageBackend,
  req: ListRequest,
  total: number | undefined,
  dict: Record<string, unknown>,
  tag: string,
): Promise<PlanHints | undefined> {
  if (backend.db.dialect !== 'sqlite' || total === undefined || req.links) return undefined;
  const order = (dict.order_by as Record<string, Record<string, unknown>[]>[])[0]?.[tag]?.[0] ?? {};
  if (Object.keys(order)[0] !== 'ctime') return undefined;
  const filters = (dict.filters as Record<string, Record<string, unknown>>)[tag] ?? {};
  if (Object.keys(filters).length === 0) return undefined;
  const all = await queryCount(backend, { path: [(dict.path as unknown[])[0]], project: { [tag]: ['id'] } });
  return all > 0 && total / all >= ORDERED_SCAN_SHARE ? { orderedScan: true } : undefined;
}

function renamePk(filters: Record<string, QsFilter>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filters)) out[key === 'pk' ? 'id' : key] = value;
  return out;
}

function parseFullType(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') {
    throw badRequest(
      `full_type must be a quoted string such as "data.core.dict.Dict.|", got ${String(value)}`,
    );
  }
  try {
    return fullTypeFilters(value);
  } catch (error) {
    if (error instanceof FullTypeError) throw badRequest(error.message);
    throw error;
  }
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

function flag(name: string, value: unknown): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw badRequest(`The ${name} filter is false by default and can only be set to true.`);
}

/** Default node columns, plus `attributes`/`extras` (whole or by key) when asked for. */
function nodeProjections(spec: CollectionSpec, qs: ParsedQueryString): string[] {
  const projection = [...spec.defaultProjections];
  if (flag('attributes', qs.attributes)) {
    if (qs.attributesFilter === undefined) projection.push('attributes');
    else for (const key of asList(qs.attributesFilter)) projection.push(`attributes.${String(key)}`);
  }
  if (flag('extras', qs.extras)) {
    if (qs.extrasFilter === undefined) projection.push('extras');
    else for (const key of asList(qs.extrasFilter)) projection.push(`extras.${String(key)}`);
  }
  return projection;
}

/** `attributes.x` projections are answered nested, as `{"attributes": {"x": ...}}`. */
function nestProjected(record: Record<string, unknown>, qs: ParsedQueryString): Record<string, unknown> {
  if (qs.attributesFilter === undefined && qs.extrasFilter === undefined) return record;
  const out = { ...record };
  for (const [kind, flagValue, keys] of [
    ['attributes', qs.attributes, qs.attributesFilter],
    ['extras', qs.extras, qs.extrasFilter],
  ] as const) {
    if (flagValue !== true || keys === undefined) continue;
    const nested: Record<string, unknown> = {};
    for (const key of asList(keys)) {
      const column = `${kind}.${String(key)}`;
      nested[String(key)] = out[column] ?? null;
      carryMark(record, column, nested, String(key));
      delete out[column];
    }
    out[kind] = nested;
  }
  return out;
}

/** `orderby=-ctime,label` -> QueryBuilder order_by; `id` is always the last tie-breaker, as in the reference. */
function orderSpec(orderby: unknown[]): Record<string, { order: 'asc' | 'desc' }>[] {
  const order = new Map<string, 'asc' | 'desc'>();
  for (const item of orderby) {
    if (typeof item !== 'string' || item === '') {
      throw badRequest(`orderby takes column names such as -ctime or id, got ${JSON.stringify(item)}`);
    }
    let column = item;
    let direction: 'asc' | 'desc' = 'asc';
    if (item.startsWith('-') || item.startsWith('+')) {
      direction = item.startsWith('-') ? 'desc' : 'asc';
      column = item.slice(1);
    }
    order.set(column === 'pk' ? 'id' : column, direction);
  }
  if (!orderby.includes('id') && !orderby.includes('-id')) order.set('id', order.get('id') ?? 'asc');
  return [...order].map(([column, direction]) => ({ [column]: { order: direction } }));
}
