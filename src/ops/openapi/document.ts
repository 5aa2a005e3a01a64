/**
 * The OpenAPI 3.1 description of the v4 API as this server serves it: its prefix, its endpoints (those of
 * the root listing, from the same table), the query-string language, answers and errors. Built once per app.
 */
import { parameters, QUERY_LANGUAGE, type PageLimits } from './parameters.js';
import { buildPaths } from './paths.js';
import { HEADERS, RESPONSES } from './responses.js';
import { COMPONENT_SCHEMAS } from './schemas.js';

export interface DocumentOptions extends PageLimits {
  /** The API prefix, e.g. `/api/v4` (may be empty). */
  prefix: string;
  /** `--public-url`'s base when set: the servers entry is then absolute. */
  publicBase?: string;
  /** Whether `POST /querybuilder/` is served. */
  posting: boolean;
  version: string;
}

const DESCRIPTION = `
The AiiDA REST API v4, served by Quarry from \`.aiida\` archives and AiiDA profiles, wire-compatible with
aiida-core's own server (\`verdi restapi\`). Every path below answers GET, HEAD and OPTIONS; \`/querybuilder/\`
also POST. Another method on an existing path answers **405** with \`Allow\`; an unknown path answers **404**
with the list of endpoints. Every answer, errors and files included, carries \`Access-Control-Allow-Origin: *\`.

Paths end in \`/\` as the root listing writes them; the same path without it is answered alike, with no redirect.

JSON answers are an *envelope*: \`data\` (the answer proper), \`id\`, \`method\`, \`path\`, \`query_string\`,
\`resource_type\`, \`url\` and \`url_root\`. Date-times are RFC 1123 strings in GMT
(\`Mon, 04 Mar 2019 17:08:57 GMT\`); numbers keep the form they are stored in (\`240.0\` stays a float).

${QUERY_LANGUAGE}

## Errors

Every error answer is \`{"message": "..."}\` saying what to fix. Besides those each operation lists, a request
may be refused before it reaches an endpoint: 400 (a Host header that is not a host, a path that is not valid
percent-encoding, bytes that are not HTTP), 408 (headers or body too slow to arrive), 413 (body too large),
414 (a path segment longer than any id), 431 (request line and headers over 16 KiB), 501 (a method HTTP does
not define, CONNECT).
`.trim();

const TAGS: [string, string][] = [
  ['server', 'The server and its endpoints'],
  ['nodes', 'Nodes with their contents, links, repository files, exports and statistics'],
  ['processes', 'Process reports and columns'],
  ['calcjobs', 'Input and output files of calculation jobs'],
  ['computers', 'Computers'],
  ['groups', 'Groups'],
  ['users', 'Users'],
  ['querybuilder', 'Queries as QueryBuilder dictionaries'],
];

export function buildDocument(options: DocumentOptions): Record<string, unknown> {
  const server = `${options.publicBase ?? ''}${options.prefix}` || '/';
  const groups = new Set(['server', 'nodes', 'processes', 'calcjobs', 'computers', 'groups', 'users']);
  if (options.posting) groups.add('querybuilder');
  return {
    openapi: '3.1.0',
    info: {
      title: 'AiiDA REST API v4 (Quarry)',
      version: options.version,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: server, description: 'This server' }],
    tags: TAGS.filter(([name]) => groups.has(name)).map(([name, description]) => ({ name, description })),
    paths: buildPaths(options.posting),
    components: {
      schemas: COMPONENT_SCHEMAS,
      parameters: parameters(options),
      responses: RESPONSES,
      headers: HEADERS,
    },
  };
}
