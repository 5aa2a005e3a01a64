/**
 * Error answers and the headers of answers. Every error is `{"message": ...}` (components/schemas/Error) with
 * `Access-Control-Allow-Origin`, whatever raised it: src/http/failures.ts, src/rest/errors.ts,
 * src/http/early-errors.ts and the storages' errors (src/storage/types.ts) choose the statuses named here.
 */
import { ref, type Schema } from './schemas.js';

const header = (description: string, schema: Schema = { type: 'string' }): Schema => ({
  description,
  schema,
});

export const HEADERS: Record<string, Schema> = {
  'Access-Control-Allow-Origin': header(
    '`*` on every answer, errors and files included: clients are cross-origin.',
  ),
  'X-Total-Count': header('How many records match, all pages together (1 for single-record answers).', {
    type: 'integer',
  }),
  Link: header(
    'On `/page/` answers: `<url>; rel=prev, <url>; rel=next, <url>; rel=first, <url>; rel=last, ` (those that exist).',
  ),
  'Content-Disposition': header('`attachment; filename="<name>"`'),
  'Retry-After': header('Seconds after which the request is likely to be admitted.', { type: 'integer' }),
  Allow: header('The methods the path answers, e.g. `GET, HEAD, OPTIONS`.'),
};

const h = (...names: string[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

const errorContent = (schema: Schema = ref('Error')) => ({ 'application/json': { schema } });

/** One error answer: what the status means here, in the `{message}` shape. */
function errorResponse(description: string, headers: string[] = [], schema?: Schema): Schema {
  return {
    description,
    headers: h('Access-Control-Allow-Origin', ...headers),
    content: errorContent(schema),
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
    [],
    { oneOf: [ref('Error'), ref('EnvelopedError')] },
  ),
  NotFound: errorResponse(
    'Nothing answers: no record has this id (or a UUID prefix is shared by several), a page past the last, ' +
      'a process report of a node that is no process, a repository file that does not exist, an unknown URL ' +
      '(then `available_endpoints` lists the endpoints). Also, as the reference, a query string that the ' +
      'v4 language cannot read, and filters where the endpoint takes none.',
  ),
  MethodNotAllowed: errorResponse(
    'The path exists but does not answer this method; `Allow` lists those it answers.',
    ['Allow'],
  ),
  PayloadTooLarge: errorResponse(
    'The request body is larger than the server accepts (`--max-body`, 1 MiB by default).',
  ),
  UriTooLong: errorResponse('A path segment is longer than any id can be.'),
  InternalError: errorResponse(
    'A failure of the server itself; the message says to see the server log, where it is written with its cause. ' +
      '(The reference server answered many bad requests with a 500 in this shape; Quarry answers those with a ' +
      '4xx or the correct result.)',
  ),
  NotImplemented: errorResponse(
    'No export of this node type in this format (process nodes are never exported), or no download formats ' +
      'for this type.',
  ),
  BadGateway: errorResponse(
    'A file of the repository whose stored bytes are damaged (size or checksum differ from the record): the ' +
      'request was fine, the data behind it is not.',
  ),
  ServiceUnavailable: errorResponse(
    "The request's queries ran past the time limit (`--query-timeout`) or past the memory limit of a query " +
      '(narrow the request), the database cannot be reached now (it answers again once the database is back), ' +
      'or too many queries wait already (then with `Retry-After`).',
    ['Retry-After'],
  ),
};

export const statusResponses: Record<string, string> = {
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
    statuses.map((s) => [s, { $ref: `#/components/responses/${statusResponses[s] as string}` }]),
  );
}

export const headerRefs = h;
