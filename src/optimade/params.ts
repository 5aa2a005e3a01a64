/** The listing parameters of an OPTIMADE request, checked as the specification says. */
import { OptimadeError, notImplemented } from './errors.js';
import { isKnownProperty, STRUCTURE_PROPERTIES } from './properties.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 500;

/** Parameters every endpoint takes (JSON:API's and the specification's own). */
const COMMON = ['api_hint', 'response_format', 'email_address'];
const LISTING = ['filter', 'page_limit', 'page_offset', 'page_number', 'sort', 'response_fields', 'include'];
const ENTRY = ['response_fields', 'include'];
/** Standard pagination parameters of the other kinds, which Quarry does not serve. */
const OTHER_PAGING = ['page_cursor', 'page_above', 'page_below'];

/**
 * `listing`: an entry listing (`/structures`, and the `/links` listings, which take the same parameters);
 * `entry`: a single entry, where parameters not recognised are ignored (the specification: MUST be ignored);
 * `other`: `/info` and `/info/structures`.
 */
export type Endpoint = 'listing' | 'entry' | 'other';

/** The most sort keys a request may give: past it, a 400 that says so. */
export const MAX_SORT_KEYS = 8;

export interface ListingParams {
  filter?: string;
  limit: number;
  offset: number;
  sort: { column: string; descending: boolean; name: string }[];
  /** Properties asked for; undefined: the default set. */
  fields?: string[];
}

/** The query string as pairs; an unprefixed name the specification does not define is a 400. */
export function readParams(rawQuery: string, endpoint: Endpoint): URLSearchParams {
  const params = new URLSearchParams(rawQuery);
  const allowed = new Set([
    ...COMMON,
    ...(endpoint === 'listing' ? LISTING : endpoint === 'entry' ? ENTRY : []),
  ]);
  for (const name of new Set(params.keys())) {
    if (allowed.has(name)) {
      if (params.getAll(name).length > 1)
        throw new OptimadeError(400, 'Bad Request', `${name} is given more than once; give it once`, name);
      continue;
    }
    // Custom parameters carry a provider's prefix (`_abc_name`); those of other providers are ignored.
    if (/^_[a-z0-9]+_/.test(name)) continue;
    if (endpoint === 'entry') continue;
    if (endpoint === 'listing' && OTHER_PAGING.includes(name))
      throw notImplemented(`Pagination by ${name} (use page_offset or page_number)`, name);
    throw new OptimadeError(
      400,
      'Bad Request',
      `unknown query parameter ${name}; this endpoint takes ${[...allowed].join(', ')} and parameters with a provider prefix (_name_)`,
      name,
    );
  }
  const format = params.get('response_format');
  if (format !== null && format !== 'json')
    throw new OptimadeError(
      400,
      'Bad Request',
      `response_format ${format} is not served; the only format is json`,
      'response_format',
    );
  const hint = params.get('api_hint');
  if (hint !== null && !/^v\d+(\.\d+)?$/.test(hint))
    throw new OptimadeError(
      400,
      'Bad Request',
      `api_hint is vMAJOR or vMAJOR.MINOR (such as v1), not ${JSON.stringify(hint)}`,
      'api_hint',
    );
  // Every 1.x version is answered by 1.3 (minor versions add, never change); another major one is not served.
  if (hint !== null && !/^v1(\.|$)/.test(hint))
    throw new OptimadeError(
      553,
      'Version Not Supported',
      `api_hint ${hint} asks a major version this server does not serve; it serves v1 (1.3.0)`,
      'api_hint',
    );
  const include = params.get('include');
  if (include !== null && include !== '' && include !== 'references')
    throw new OptimadeError(
      400,
      'Bad Request',
      `include names relationships; this server serves none (give include= or leave it out)`,
      'include',
    );
  return params;
}

function integer(params: URLSearchParams, name: string, min: number): number | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text)))
    throw new OptimadeError(
      400,
      'Bad Request',
      `${name} is a whole number of at least ${min}, not ${JSON.stringify(text)}`,
      name,
    );
  return Number(text);
}

export function listingParams(params: URLSearchParams, maxLimit = MAX_PAGE_LIMIT): ListingParams {
  const { limit, offset } = pagingParams(params, maxLimit);
  const filter = params.get('filter') ?? undefined;
  return {
    filter: filter === undefined || filter.trim() === '' ? undefined : filter,
    limit,
    offset,
    sort: sortFields(params.get('sort')),
    fields: responseFields(params.get('response_fields')),
  };
}

/** `page_limit`, and `page_offset` or `page_number`, as the first entry and the most entries of the page. */
export function pagingParams(
  params: URLSearchParams,
  maxLimit = MAX_PAGE_LIMIT,
): { limit: number; offset: number } {
  const limit = integer(params, 'page_limit', 1) ?? DEFAULT_PAGE_LIMIT;
  if (limit > maxLimit)
    throw new OptimadeError(
      403,
      'Forbidden',
      `page_limit ${limit} is above the most this server gives in one page, ${maxLimit}`,
      'page_limit',
    );
  const offset = integer(params, 'page_offset', 0);
  const number = integer(params, 'page_number', 1);
  if (offset !== undefined && number !== undefined)
    throw new OptimadeError(400, 'Bad Request', 'give page_offset or page_number, not both', 'page_number');
  return { limit, offset: offset ?? (number === undefined ? 0 : (number - 1) * limit) };
}

function sortFields(text: string | null): ListingParams['sort'] {
  if (text === null || text === '') return [];
  const parts = text.split(',');
  if (parts.length > MAX_SORT_KEYS)
    throw new OptimadeError(
      400,
      'Bad Request',
      `sort gives ${parts.length} keys; this server sorts by ${MAX_SORT_KEYS} at most`,
      'sort',
    );
  return parts.map((part) => {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    const info = Object.hasOwn(STRUCTURE_PROPERTIES, name) ? STRUCTURE_PROPERTIES[name] : undefined;
    if (info === undefined || !info.sortable || info.column === undefined) {
      const sortable = Object.keys(STRUCTURE_PROPERTIES).filter((k) => STRUCTURE_PROPERTIES[k]!.sortable);
      throw new OptimadeError(
        400,
        'Bad Request',
        `${JSON.stringify(name)} cannot be sorted on; sortable properties: ${sortable.join(', ')}`,
        'sort',
      );
    }
    return { column: info.column, descending, name };
  });
}

/**
 * `response_fields`: names of properties. Those the specification defines are returned (null where Quarry has
 * no value), as are other providers'; a name neither defines, unprefixed or with Quarry's prefix, is a 400.
 */
export function responseFields(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  for (const name of names) {
    if (isKnownProperty(name)) continue;
    if (/^_[a-z0-9]+_/.test(name) && !name.startsWith('_quarry_')) continue;
    throw new OptimadeError(
      400,
      'Bad Request',
      `unknown property ${name} in response_fields; /info/structures lists them`,
      'response_fields',
    );
  }
  return names;
}
