/**
 * GET-side requests: every endpoint's URL shape with real and broken ids and pages, query strings written in the
 * v4 grammar from its keys, operators and values (and outside it), and mutations of the URLs real clients sent
 * (the conformance requests).
 */
import { encode, number, numberText, text, type Rng } from './values.js';

/** What the served data holds, read from the server before fuzzing, so that many requests hit real records. */
export interface Corpus {
  /** Path patterns of the root listing, e.g. `/api/v4/nodes/<id>/links/tree/`. */
  endpoints: string[];
  nodeUuids: string[];
  processUuids: string[];
  computerUuids: string[];
  groupUuids: string[];
  userIds: number[];
  attributeKeys: string[];
  fullTypes: string[];
  /** Paths with query strings that clients sent (the recorded conformance requests). */
  recordedPaths: string[];
  /** QueryBuilder bodies clients sent. */
  recordedBodies: Record<string, unknown>[];
}

export interface FuzzRequest {
  method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'DELETE';
  url: string;
  /** A JSON text, or raw bytes that are not JSON. */
  payload?: string;
}

const RESERVED = [
  'limit',
  'offset',
  'perpage',
  'orderby',
  'download',
  'download_format',
  'filename',
  'in_limit',
  'out_limit',
  'attributes',
  'attributes_filter',
  'extras',
  'extras_filter',
  'full_type',
  'profile',
];
const COLUMNS = [
  'id',
  'pk',
  'uuid',
  'node_type',
  'process_type',
  'label',
  'description',
  'ctime',
  'mtime',
  'time',
  'user_id',
  'dbcomputer_id',
  'email',
  'first_name',
  'institution',
  'hostname',
  'scheduler_type',
  'type_string',
  'user',
  'attributes',
  'extras',
];
const OPERATORS = ['=', '!=', '=in=', '=notin=', '>', '<', '>=', '<=', '=like=', '=ilike='];
const BAD_OPERATORS = ['==', '=>', '~', '', '=!', '=in', '<>', '=IN=', '=~'];
const DOWNLOAD_FORMATS = [
  'cif',
  'xsf',
  'xyz',
  'json',
  'mpl_pdf',
  'mpl_png',
  'agr',
  'dat',
  'gnuplot',
  'xml',
  'nope',
];

function id(rng: Rng, corpus: Corpus, pattern: string): string {
  const roll = rng.next();
  const users = pattern.includes('/users/');
  if (roll < 0.6) {
    if (users) return String(rng.pick(corpus.userIds.length > 0 ? corpus.userIds : [1]));
    const pool = pattern.includes('/computers/')
      ? corpus.computerUuids
      : pattern.includes('/groups/')
        ? corpus.groupUuids
        : pattern.includes('/processes/') || pattern.includes('/calcjobs/')
          ? corpus.processUuids
          : corpus.nodeUuids;
    const uuid = rng.pick(pool.length > 0 ? pool : corpus.nodeUuids);
    return rng.chance(0.7) ? uuid : uuid.slice(0, rng.int(1, 35));
  }
  if (roll < 0.75) return numberText(rng);
  if (roll < 0.85) return rng.uuid();
  return encode(rng, text(rng)).replace(/\//g, rng.chance(0.5) ? '%2F' : '/');
}

function page(rng: Rng): string {
  return rng.pick([
    '0',
    '1',
    '2',
    '3',
    '50',
    '999999',
    '9007199254740993',
    '1'.repeat(400),
    '-1',
    '1.5',
    'x',
  ]);
}

/** One value as the v4 grammar writes it (or almost). */
function qsValue(rng: Rng, corpus: Corpus, key: string): string {
  const roll = rng.next();
  if (key === 'full_type' && roll < 0.5)
    return `"${rng.pick(corpus.fullTypes.length > 0 ? corpus.fullTypes : ['x|'])}"`;
  if (key.endsWith('_filter') && roll < 0.5) {
    const keys = corpus.attributeKeys.length > 0 ? corpus.attributeKeys : ['value'];
    return Array.from(
      { length: rng.int(1, 3) },
      () => `"${rng.chance(0.8) ? rng.pick(keys) : text(rng, false)}"`,
    ).join(',');
  }
  if (key === 'download_format' && roll < 0.6) return rng.pick(DOWNLOAD_FORMATS);
  if (roll < 0.3) return numberText(rng);
  if (roll < 0.6) {
    const raw = text(rng).replace(/"/g, rng.chance(0.7) ? '""' : '"');
    return rng.chance(0.9) ? `"${raw}"` : raw;
  }
  if (roll < 0.7) return rng.pick(['true', 'false', 'True', 'None', 'null']);
  if (roll < 0.8) {
    const two = (n: number) => String(n).padStart(2, '0');
    const date = `${String(rng.int(1, 9999)).padStart(4, '0')}-${two(rng.int(0, 13))}-${two(rng.int(0, 32))}`;
    return (
      date + rng.pick(['', 'T10', 'T10:30', 'T10:30:59', 'T25:00', 'T10:30+02:00', 'T10:30:00-05', '+01'])
    );
  }
  if (roll < 0.9) return Array.from({ length: rng.int(2, 6) }, () => qsValue(rng, corpus, key)).join(',');
  return rng.pick(['-ctime', 'ctime', 'id', '-id', 'label', '+mtime', 'attributes.x', 'a,b', '', ',', '""']);
}

export function queryString(rng: Rng, corpus: Corpus): string {
  if (rng.chance(0.05)) return encode(rng, text(rng));
  const fields: string[] = [];
  for (let i = rng.int(0, 4); i > 0; i--) {
    const key = rng.chance(0.45)
      ? rng.pick(RESERVED)
      : rng.chance(0.85)
        ? rng.pick(COLUMNS)
        : rng.pick(['attributes.value', 'x', '_', '1abc', 'a-b', '', 'Limit', text(rng, false)]);
    const op = rng.chance(0.92) ? rng.pick(OPERATORS) : rng.pick(BAD_OPERATORS);
    fields.push(`${key}${op}${qsValue(rng, corpus, key)}`);
  }
  if (rng.chance(0.1)) fields.push(rng.pick(['', '&', '_=1', 'limit=1e99', 'offset=1.5', 'in_limit=1e99']));
  return encode(rng, fields.join('&'));
}

/** A URL of one endpoint of the listing (or just beside one), with a query string. */
export function endpointUrl(rng: Rng, corpus: Corpus): string {
  const pattern = rng.pick(corpus.endpoints);
  let path = pattern.replace('<id>', () => id(rng, corpus, pattern)).replace('<int:page>', () => page(rng));
  if (rng.chance(0.15)) path = path.replace(/\/$/, '');
  if (rng.chance(0.05)) path += rng.pick(['x/', '../', '%2e%2e/', '/', 'page/', '?']);
  return rng.chance(0.85) ? `${path}?${queryString(rng, corpus)}` : path;
}

/** A recorded URL, changed in one to three places. */
export function mutatedUrl(rng: Rng, corpus: Corpus): string {
  let url = rng.pick(corpus.recordedPaths);
  for (let n = rng.int(1, 3); n > 0; n--) {
    const roll = rng.next();
    const at = rng.int(0, url.length);
    if (roll < 0.2) url = url.slice(0, at) + encode(rng, text(rng, false)) + url.slice(at);
    else if (roll < 0.35) url = url.slice(0, at) + url.slice(Math.min(url.length, at + rng.int(1, 8)));
    else if (roll < 0.55) {
      const key = rng.pick([...RESERVED, ...COLUMNS]);
      url += `${url.includes('?') ? '&' : '?'}${key}${rng.pick(OPERATORS)}${encode(rng, qsValue(rng, corpus, key))}`;
    } else if (roll < 0.7) url = url.replace(/=([^&]*)/, () => `=${encode(rng, String(number(rng)))}`);
    else if (roll < 0.8)
      url = url.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]{27}/, (u) => u.slice(0, rng.int(1, 36)));
    else if (roll < 0.9) url = url.replace(/"([^"]*)"/, () => `"${encode(rng, text(rng))}"`);
    else url = url.replace(/\?.*$/, '') + `?${queryString(rng, corpus)}`;
  }
  return url;
}

export function restRequest(rng: Rng, corpus: Corpus): FuzzRequest {
  const made =
    corpus.recordedPaths.length > 0 && rng.chance(0.35) ? mutatedUrl(rng, corpus) : endpointUrl(rng, corpus);
  // inject() reads the URL with WHATWG rules, where a backslash in the path is a slash ("/\x" names a host):
  // escaped, the server sees the path as a client sends it.
  const query = made.includes('?') ? made.indexOf('?') : made.length;
  // A request target is never empty and starts with a slash (a mutation may have cut it).
  const path = made.slice(0, query).replace(/\\/g, '%5C');
  const url = (path.startsWith('/') ? path : `/${path}`) + made.slice(query);
  const roll = rng.next();
  const method =
    roll < 0.85
      ? 'GET'
      : roll < 0.92
        ? 'HEAD'
        : roll < 0.96
          ? 'OPTIONS'
          : rng.pick(['POST', 'DELETE'] as const);
  return { method, url, payload: method === 'POST' ? '{}' : undefined };
}
