/**
 * The `paths` of the document, one per endpoint of the table the router and the root listing are built from
 * (src/http/endpoints.ts), so that the three cannot disagree. Each path has the operations of the methods the
 * listing names: GET (and POST on `/querybuilder/`), HEAD (GET's answer without its body) and OPTIONS.
 */
import { endpointTable, methodsOf, type Endpoint } from '../../http/endpoints.js';
import { endpointDoc, type EndpointDoc } from './endpoint-docs.js';
import { querybuilderGet, querybuilderPost } from './querybuilder.js';
import { PATH_PARAMETERS } from './parameters.js';
import { errorResponses, headerRefs } from './responses.js';
import { envelopeOf, type Schema } from './schemas.js';

/** `/nodes/<id>/page/<int:page>/` -> `/nodes/{id}/page/{page}/`. */
export function openApiPath(pattern: string): string {
  return pattern.replace('<id>', '{id}').replace('<int:page>', '{page}');
}

const paramRef = (name: string): Schema => ({ $ref: `#/components/parameters/${name}` });

/** Written out, not referenced: Swagger UI does not resolve references among a path's own parameters. */
function pathParameters(endpoint: Endpoint): Schema[] {
  const out: Schema[] = [];
  if (endpoint.pattern.includes('<id>'))
    out.push(PATH_PARAMETERS[endpoint.group === 'users' ? 'userId' : 'id']);
  if (endpoint.pattern.includes('<int:page>')) out.push(PATH_PARAMETERS.page);
  return out;
}

function successHeaders(endpoint: Endpoint, doc: EndpointDoc): Record<string, Schema> {
  const names = ['Access-Control-Allow-Origin'];
  if (doc.counted) names.push('X-Total-Count');
  if (endpoint.pattern.includes('/page/')) names.push('Link');
  if (doc.file !== undefined) names.push('Content-Disposition');
  return headerRefs(...names);
}

function getOperation(endpoint: Endpoint, doc: EndpointDoc, head: boolean): Schema {
  const content: Record<string, Schema> = {};
  if (!head && doc.json) content['application/json'] = { schema: envelopeOf(doc.json) };
  if (!head && doc.file !== undefined)
    content['application/octet-stream'] = { schema: { type: 'string', format: 'binary' } };
  const ok: Schema = {
    description: head ? 'The headers GET answers, without a body.' : (doc.file ?? 'The answer.'),
    headers: successHeaders(endpoint, doc),
    ...(head ? {} : { content }),
  };
  const errors = errorResponses(['400', ...doc.errors, '500'].sort());
  return {
    tags: [endpoint.group],
    summary: head ? `${doc.summary} (headers only)` : doc.summary,
    ...(doc.description && !head ? { description: doc.description } : {}),
    operationId: operationId(head ? 'head' : 'get', endpoint.pattern),
    parameters: doc.query.map(paramRef),
    responses: { '200': ok, ...(head ? withoutContent(errors) : errors) },
  };
}

/** HEAD answers carry no body: its error answers are the GET ones without content. */
function withoutContent(responses: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status]) => [status, { description: 'As GET, without a body.' }]),
  );
}

function optionsOperation(endpoint: Endpoint): Schema {
  return {
    tags: [endpoint.group],
    summary: 'The methods this path answers (CORS preflight)',
    operationId: operationId('options', endpoint.pattern),
    responses: {
      '200': {
        description:
          'An empty answer whose `Allow` and `Access-Control-Allow-Methods` list the methods; it allows the ' +
          'headers the preflight asks for (`Content-Type` by default) for a day.',
        headers: headerRefs('Access-Control-Allow-Origin', 'Allow'),
        content: { 'text/html': { schema: { type: 'string', maxLength: 0 } } },
      },
    },
  };
}

function operationId(method: string, pattern: string): string {
  const words = pattern
    .replace('<int:page>', 'page')
    .split(/[^A-Za-z0-9_]+/)
    .filter(Boolean);
  return [method, ...(words.length === 0 ? ['root'] : words)].join('_');
}

export function buildPaths(posting: boolean): Record<string, Record<string, Schema>> {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const endpoint of endpointTable(posting)) {
    const doc = endpointDoc(endpoint);
    const item: Record<string, Schema> = {};
    const shared = pathParameters(endpoint);
    if (shared.length > 0) item.parameters = shared as unknown as Schema;
    for (const method of methodsOf(endpoint)) {
      if (endpoint.group === 'querybuilder' && method !== 'OPTIONS') {
        item[method.toLowerCase()] =
          method === 'POST' ? querybuilderPost() : querybuilderGet(method === 'HEAD', operationId);
      } else if (method === 'GET' || method === 'HEAD') {
        item[method.toLowerCase()] = getOperation(endpoint, doc, method === 'HEAD');
      } else {
        item.options = optionsOperation(endpoint);
      }
    }
    paths[openApiPath(endpoint.pattern)] = item;
  }
  return paths;
}
