/**
 * Error answers and the headers of answers. Every error is `{"message": ...}` (components/schemas/Error) with
 * `Access-Control-Allow-Origin`, whatever raised it: src/http/failures.ts, src/rest/errors.ts,
 * src/http/early-errors.ts and the storages' errors (src/storage/types.ts) choose the statuses named here.
 * Each example message is one Quarry writes.
 */
import { QueryTimeoutError } from '../../storage/types.js';
import { ref, type Schema } from './schemas.js';

/** `required`: the header is on every answer that lists it. */
const header = (description: string, schema: Schema = { type: 'string' }, required = false): Schema => ({
  description,
  ...(required ? { required } : {}),
  schema,
});

export const HEADERS: Record<string, Schema> = {
  'Access-Control-Allow-Origin': header(
    '`*` on every answer, errors and files included: clients are cross-origin.',
    { type: 'string', const: '*' },
    true,
  ),
  'X-Total-Count': header(
    'How many records match, all pages together (1 for single-record answers).',
    { type: 'integer', minimum: 0 },
    true,
  ),
  Link: header(
    'On `/page/` answers: `<url>; rel=prev, <url>; rel=next, <url>; rel=first, <url>; rel=last, ` (those that exist).',
    { type: 'string' },
    true,
  ),
  'Content-Disposition': header('`attachment; filename="<name>"` on files.'),
  'Retry-After': header('Seconds after which the request is likely to be admitted.', { type: 'integer' }),
  Allow: header('The methods the path answers, e.g. `GET, HEAD, OPTIONS`.', { type: 'string' }, true),
};

const h = (...names: string[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

/** One error answer: what the status means here, in the `{message}` shape, with a message Quarry writes. */
function errorResponse(
  description: string,
  message: string,
  headers: string[] = [],
  schema: Schema = ref('Error'),
): Schema {
  return {
    description,
    headers: h('Access-Control-Allow-Origin', ...headers),
    content: { 'application/json': { schema, example: { message } } },
  };
}

export const RESPONSES: Record<string, Schema> = {
  BadRequest: errorResponse(
    'A request Quarry can read but not answer as asked: a value of the wrong kind (`limit=abc`, `limit=-1`, ' +
      '`attributes=yes`), `limit`/`perpage` above the maximum, `limit` with `/page/`, an unknown column in ' +
      '`orderby` or a filter, an unknown `?profile=`, a bad Host header, a path that is not valid ' +
      'percent-encoding; for `POST /querybuilder/` a body that is not a QueryBuilder dictionary or is past a bound ' +
      '(vertices, `in` list, rows). The message says what to send instead. The reference server answered some of ' +
      'these with a 500, and wrapped one (`?profile=` where switching profiles is off) in the answer envelope as ' +
      '`data.message`, which is why that form is described too: a client that reads `message` or `data.message` ' +
      'works with either server.',
    'Limit and perpage cannot be bigger than 400',
    [],
    { oneOf: [ref('Error'), ref('EnvelopedError')] },
  ),
  NotFound: errorResponse(
    'Nothing answers: no record has this id (or a UUID prefix is shared by several), a page past the last, ' +
      'a process report of a node that is no process, a repository file that does not exist, an unknown URL ' +
      '(then `available_endpoints` lists the endpoints). Also, as the reference, a query string that the ' +
      'v4 language cannot read, and filters where the endpoint takes none.',
    "either no object's id starts with '00000000-aaaa' or the corresponding object is not of type aiida.orm.node.Node",
  ),
  MethodNotAllowed: errorResponse(
    'The path exists but does not answer this method; `Allow` lists those it answers.',
    'The method DELETE is not allowed for this URL; it answers GET, HEAD, OPTIONS.',
    ['Allow'],
  ),
  PayloadTooLarge: errorResponse(
    'The request body is larger than the server accepts (`--max-body`, 1 MiB by default).',
    'Request body is too large',
  ),
  UriTooLong: errorResponse(
    'A path segment is longer than any id can be.',
    'A path segment is too long; ids are UUIDs (36 characters), their prefixes, or numbers',
  ),
  InternalError: errorResponse(
    'A failure of the server itself; the message says to see the server log, where it is written with its cause. ' +
      '(The reference server answered many bad requests with a 500 in this shape; Quarry answers those with a ' +
      '4xx or the correct result.)',
    'Internal error while answering this request; see the server log.',
  ),
  NotImplemented: errorResponse(
    'No export of this node type in this format (process nodes are never exported), or no download formats ' +
      'for this type.',
    'This endpoint is not available for Process nodes.',
  ),
  BadGateway: errorResponse(
    'A file of the repository whose stored bytes are damaged (size or checksum differ from the record): the ' +
      'request was fine, the data behind it is not.',
    'repo/3f5a0c2e… is damaged in demo.aiida (its checksum does not match); export the archive again',
  ),
  ServiceUnavailable: errorResponse(
    "The request's queries ran past the time limit (`--query-timeout`) or past the memory limit of a query " +
      '(narrow the request), the database cannot be reached now (it answers again once the database is back), ' +
      'or too many queries wait already (then with `Retry-After`).',
    QueryTimeoutError.atLimit(30_000).message,
    ['Retry-After'],
  ),
};

const STATUS_RESPONSES: Record<string, string> = {
  '400': 'BadRequest',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '413': 'PayloadTooLarge',
  '414': 'UriTooLong',
  '500': 'InternalError',
  '501': 'NotImplemented',
  '502': 'BadGateway',
  '503': 'ServiceUnavailable',
};

/** `{ "404": {$ref}, ... }` for the statuses given. */
export function errorResponses(statuses: string[]): Record<string, Schema> {
  return Object.fromEntries(
    statuses.map((s) => [s, { $ref: `#/components/responses/${STATUS_RESPONSES[s] as string}` }]),
  );
}

export const headerRefs = h;
