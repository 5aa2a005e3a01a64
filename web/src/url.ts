/**
 * The explorer's URL scheme: every view is a path (history routing) and its state is in the query string, so
 * that each view is a link to share. `profile` and `api` are kept in every link.
 */

export type Route =
  | { name: 'home' }
  | { name: 'nodes' }
  | { name: 'node'; uuid: string }
  | { name: 'groups' }
  | { name: 'group'; uuid: string }
  | { name: 'computers' }
  | { name: 'computer'; uuid: string }
  | { name: 'users' }
  | { name: 'search' }
  | { name: 'unknown'; path: string };

/** The query parameters that follow the reader from view to view. */
export const KEPT_PARAMS = ['profile', 'api'] as const;

/** The route of a path, `root` (where the app is published, e.g. `/quarry`) taken off first. */
export function parseRoute(pathname: string, root = ''): Route {
  let path = pathname;
  if (root !== '' && (path === root || path.startsWith(`${root}/`))) path = path.slice(root.length);
  const parts = path.split('/').filter((p) => p !== '');
  const [first, second, ...rest] = parts.map((p) => safeDecode(p));
  if (rest.length > 0) return { name: 'unknown', path };
  if (first === undefined) return { name: 'home' };
  if (first === 'users' && second === undefined) return { name: 'users' };
  if (first === 'search' && second === undefined) return { name: 'search' };
  const one: Record<string, 'node' | 'group' | 'computer'> = {
    nodes: 'node',
    groups: 'group',
    computers: 'computer',
  };
  const item = one[first];
  if (item === undefined) return { name: 'unknown', path };
  if (second === undefined) return { name: first as 'nodes' | 'groups' | 'computers' };
  return { name: item, uuid: second };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function routePath(route: Exclude<Route, { name: 'unknown' }>): string {
  switch (route.name) {
    case 'home':
      return '/';
    case 'node':
      return `/nodes/${encodeURIComponent(route.uuid)}`;
    case 'group':
      return `/groups/${encodeURIComponent(route.uuid)}`;
    case 'computer':
      return `/computers/${encodeURIComponent(route.uuid)}`;
    default:
      return `/${route.name}`;
  }
}

/**
 * A link inside the app: `path` under `root`, with the kept parameters of the current URL and `params` (an
 * undefined or empty value leaves the parameter out).
 */
export function appHref(
  path: string,
  params: Record<string, string | number | undefined> = {},
  current: URLSearchParams = new URLSearchParams(),
  root = '',
): string {
  const query = new URLSearchParams();
  for (const name of KEPT_PARAMS) {
    const value = current.get(name);
    if (value !== null && value !== '' && !(name in params)) query.set(name, value);
  }
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const q = query.toString();
  return `${root}${path}${q === '' ? '' : `?${q}`}`;
}

/** The node list's state as the URL holds it. */
export interface ListState {
  page: number;
  perpage: number;
  /** A column of the API's `orderby`, `-` first for descending. */
  sort: string;
  /** A `full_type` of the type tree (`data.core.%|` for a namespace). */
  type?: string;
  /** Creation dates, `YYYY-MM-DD`, both inclusive. */
  from?: string;
  to?: string;
  user?: number;
  /** Text the label contains (any case). */
  label?: string;
  /** The start of a UUID. */
  uuid?: string;
  /** Structures only, through the source's OPTIMADE endpoint: with all these elements, */
  elements?: string[];
  /** with this many elements, */
  nelements?: number;
  /** of this formula (any multiple of it: `SiO2` finds Si2O4 too). */
  formula?: string;
  /** Failed processes only (excepted, killed, or a non-zero exit status), through the querybuilder. */
  failed?: boolean;
  /** No order was asked for: the labelled nodes come first (each part newest first). */
  labelledFirst?: boolean;
}

export const PAGE_SIZES = [20, 50, 100, 200] as const;
export const SORTABLE = ['id', 'uuid', 'label', 'node_type', 'ctime', 'mtime', 'user_id'] as const;
const DEFAULT_LIST: ListState = { page: 1, perpage: 20, sort: '-ctime' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function listStateFrom(params: URLSearchParams): ListState {
  const whole = (name: string, min: number, fallback: number) => {
    const n = Number(params.get(name));
    return Number.isInteger(n) && n >= min ? n : fallback;
  };
  const text = (name: string) => {
    const v = params.get(name);
    return v === null || v.trim() === '' ? undefined : v.trim();
  };
  const perpage = whole('perpage', 1, DEFAULT_LIST.perpage);
  const sortParam = params.get('sort') ?? '';
  const sortAsked = SORTABLE.includes(sortParam.replace(/^-/, '') as (typeof SORTABLE)[number]);
  const sort = sortAsked ? sortParam : DEFAULT_LIST.sort;
  const day = (name: string) => {
    const v = text(name);
    return v !== undefined && DAY.test(v) ? v : undefined;
  };
  const user = Number(params.get('user'));
  const uuid = text('uuid')?.toLowerCase();
  const elements = (text('elements') ?? '').split(/[\s,]+/).filter((e) => /^[A-Z][a-z]?$/.test(e));
  const nelements = whole('nelements', 1, 0);
  const formula = text('formula');
  return {
    page: whole('page', 1, 1),
    perpage: Math.min(perpage, 400),
    sort,
    type: text('type'),
    from: day('from'),
    to: day('to'),
    user: params.get('user') !== null && Number.isInteger(user) && user >= 0 ? user : undefined,
    label: text('label'),
    uuid: uuid !== undefined && /^[0-9a-f-]+$/.test(uuid) ? uuid : undefined,
    elements: elements.length > 0 ? [...new Set(elements)].sort() : undefined,
    nelements: nelements > 0 ? nelements : undefined,
    formula: formula !== undefined && /^([A-Z][a-z]?\d*)+$/.test(formula) ? formula : undefined,
    failed: params.get('state') === 'failed' ? true : undefined,
    labelledFirst: sortAsked ? undefined : true,
  };
}

/** The URL parameters of a list state; defaults are left out, so that the plain list is plain `/nodes`. */
export function listStateParams(state: ListState): Record<string, string | undefined> {
  return {
    page: state.page === 1 ? undefined : String(state.page),
    perpage: state.perpage === DEFAULT_LIST.perpage ? undefined : String(state.perpage),
    sort: state.sort === DEFAULT_LIST.sort ? undefined : state.sort,
    type: state.type,
    from: state.from,
    to: state.to,
    user: state.user === undefined ? undefined : String(state.user),
    label: state.label,
    uuid: state.uuid,
    elements: state.elements?.join(','),
    nelements: state.nelements === undefined ? undefined : String(state.nelements),
    formula: state.formula,
    state: state.failed ? 'failed' : undefined,
  };
}

/** A quoted value of the v4 query language, encoded for a URL. */
function quoted(value: string): string {
  return encodeURIComponent(`"${value.replace(/"/g, '')}"`);
}

/** LIKE patterns take `%` and `_` as wildcards; searched text means them literally where it can. */
function likeText(value: string): string {
  return value.replace(/[%_]/g, '');
}

/** The v4 filters of a list state (no paging or order), joined with `&`. */
export function listFilters(state: ListState): string {
  const parts: string[] = [];
  if (state.type !== undefined) parts.push(`full_type=${quoted(state.type)}`);
  if (state.from !== undefined) parts.push(`ctime>=${state.from}T00:00:00`);
  if (state.to !== undefined) parts.push(`ctime<${nextDay(state.to)}T00:00:00`);
  if (state.user !== undefined) parts.push(`user_id=${state.user}`);
  if (state.label !== undefined) parts.push(`label=ilike=${quoted(`%${likeText(state.label)}%`)}`);
  if (state.uuid !== undefined) parts.push(`uuid=like=${quoted(`${likeText(state.uuid)}%`)}`);
  return parts.join('&');
}

/** Does the list filter by chemistry (which the OPTIMADE endpoint answers)? */
export const filtersChemistry = (state: ListState): boolean =>
  state.elements !== undefined || state.nelements !== undefined || state.formula !== undefined;

/**
 * The one API request of a list page: `/nodes/page/N/` with its page size, order and filters; `pks` are the
 * structures the chemistry filters found (at least one).
 */
export function listRequest(state: ListState, pks?: number[]): { path: string; query: string } {
  const ids = pks === undefined ? '' : pks.length === 1 ? `id=${pks[0]}` : `id=in=${pks.join(',')}`;
  const filters = [listFilters(state), ids].filter((p) => p !== '').join('&');
  // `id` breaks ties, so that pages neither repeat nor skip rows that share a ctime.
  const order = state.sort.replace(/^-/, '') === 'id' ? state.sort : `${state.sort},id`;
  return {
    path: `/nodes/page/${state.page}/`,
    query: [`perpage=${state.perpage}`, `orderby=${order}`, filters].filter((p) => p !== '').join('&'),
  };
}

/**
 * One part of a page whose labelled nodes come first: the labelled (`label!=""`) or the unlabelled nodes of the
 * list, `limit` of them from `offset`, in the list's order.
 */
export function labelledPartRequest(
  state: ListState,
  labelled: boolean,
  offset: number,
  limit: number,
  pks?: number[],
): { path: string; query: string } {
  const ids = pks === undefined ? '' : pks.length === 1 ? `id=${pks[0]}` : `id=in=${pks.join(',')}`;
  const label = labelled ? 'label!=""' : 'label=""';
  const filters = [listFilters(state), ids, encodeURI(label)].filter((p) => p !== '').join('&');
  const order = state.sort.replace(/^-/, '') === 'id' ? state.sort : `${state.sort},id`;
  return { path: '/nodes/', query: `limit=${limit}&offset=${offset}&orderby=${order}&${filters}` };
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** What the search box was given: a pk, the start of a UUID, or label text. */
export type SearchTerm =
  { kind: 'pk'; pk: number } | { kind: 'uuid'; prefix: string } | { kind: 'label'; text: string };

export function classifySearch(input: string): SearchTerm | undefined {
  const text = input.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text) && text.length <= 15) return { kind: 'pk', pk: Number(text) };
  if (/^[0-9a-f]{4,}(-[0-9a-f]*)*$/i.test(text) && text.length <= 36)
    return { kind: 'uuid', prefix: text.toLowerCase() };
  return { kind: 'label', text };
}

/** Is this a whole UUID (the API's single-node paths want one, or a unique prefix)? */
export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
