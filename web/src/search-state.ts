/**
 * The search over every source (the server's `GET /search/`, docs/search.md) as the explorer's address holds it:
 * `/search?q=GaAs&elements=Ga,As&type=structure&state=failed&source=a&source=b&page=2`, so that a search is a link
 * to share and survives a reload. Read leniently (a value the API would refuse is left out, not sent), written
 * with defaults left out.
 */
/** The short type names the search API takes besides node type prefixes. */
export const SEARCH_TYPES = ['structure', 'cif', 'bands', 'calcjob', 'workchain', 'workflow', 'code', 'dict'];
export const SEARCH_STATES = ['finished', 'failed', 'excepted', 'killed'] as const;
export const SEARCH_PER_PAGE = 20;
/** The API's bounds: `q` of 1,000 characters, `page × per_page` of 10,000. */
const MAX_Q = 1000;
const MAX_PAGE = 10_000 / SEARCH_PER_PAGE;

export interface SearchState {
  q?: string;
  /** A node type prefix (`data.core.structure.`) or a short name (SEARCH_TYPES). */
  type?: string;
  /** All of them present; periodic-table symbols only, sorted. */
  elements: string[];
  state?: (typeof SEARCH_STATES)[number];
  /** Sources to search; none: every source. */
  sources: string[];
  page: number;
}

/**
 * `known`: the element symbols (periodic.ts, which the search page's chunk holds: the first page's JavaScript
 * does not need the table); without it, anything shaped like a symbol.
 */
export function searchStateFrom(params: URLSearchParams, known?: ReadonlySet<string>): SearchState {
  const q = params.get('q')?.trim().slice(0, MAX_Q);
  const type = params.get('type')?.trim();
  const elements = (params.get('elements') ?? '')
    .split(/[\s,]+/)
    .filter((e) => (known === undefined ? /^[A-Z][a-z]{0,2}$/.test(e) : known.has(e)));
  const state = params.get('state');
  const page = Number(params.get('page'));
  const sources = params.getAll('source').filter((s) => /^[A-Za-z0-9][A-Za-z0-9._~-]*$/.test(s));
  return {
    q: q === undefined || q === '' ? undefined : q,
    type:
      type !== undefined && (SEARCH_TYPES.includes(type) || /^[a-z][a-z0-9_.]*\.$/i.test(type))
        ? type
        : undefined,
    elements: [...new Set(elements)].sort(),
    state:
      state !== null && (SEARCH_STATES as readonly string[]).includes(state)
        ? (state as SearchState['state'])
        : undefined,
    sources: [...new Set(sources)],
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
  };
}

/** The pairs of a state, in a fixed order, defaults left out: the explorer's address and the API's query alike. */
function pairs(state: SearchState): [string, string][] {
  const out: [string, string][] = [];
  if (state.q !== undefined) out.push(['q', state.q]);
  if (state.type !== undefined) out.push(['type', state.type]);
  if (state.elements.length > 0) out.push(['elements', state.elements.join(',')]);
  if (state.state !== undefined) out.push(['state', state.state]);
  for (const source of state.sources) out.push(['source', source]);
  if (state.page > 1) out.push(['page', String(state.page)]);
  return out;
}

/** The explorer's query string of a search (no `?`); `kept` are the parameters every link keeps (`profile`, `api`). */
export function searchQuery(state: SearchState, kept: URLSearchParams = new URLSearchParams()): string {
  const query = new URLSearchParams();
  for (const name of ['profile', 'api']) {
    const value = kept.get(name);
    if (value !== null && value !== '') query.set(name, value);
  }
  for (const [name, value] of pairs(state)) query.append(name, value);
  return query.toString();
}

/** The query of `GET /search/` for a state. */
export function searchApiQuery(state: SearchState): string {
  const query = new URLSearchParams(pairs(state));
  query.set('per_page', String(SEARCH_PER_PAGE));
  return query.toString();
}

/** Does the state ask anything (the API answers every node to an empty search, which is not worth showing)? */
export const asksAnything = (state: SearchState): boolean =>
  state.q !== undefined ||
  state.type !== undefined ||
  state.elements.length > 0 ||
  state.state !== undefined ||
  state.sources.length > 0;

/** The state with one change, back on the first page. */
export function changed(state: SearchState, change: Partial<SearchState>): SearchState {
  return { ...state, page: 1, ...change };
}

/** Where the search API is for the explorer published at `root` (also under a source's path: it searches all). */
export const searchApi = (root: string): string => `${root}/search/`;

/** The server's figures of every source (`GET /search/sources`). */
export const sourcesFiguresApi = (root: string): string => `${root}/search/sources`;

/**
 * The source the explorer shows, if it can be named: the one of `?profile=`, the one served at its own path
 * (`/<name>/`), or the only one of the server.
 */
export function currentSource(
  params: URLSearchParams,
  root: string,
  serverRoot: string,
  sources: string[],
): string | undefined {
  const profile = params.get('profile');
  if (profile !== null && profile !== '') return profile;
  if (root !== serverRoot && root.startsWith(`${serverRoot}/`)) {
    const name = root.slice(serverRoot.length + 1);
    if (!name.includes('/')) return decodeURIComponent(name);
  }
  return sources.length === 1 ? sources[0] : undefined;
}
