/** `/querybuilder/`: POST runs a `QueryBuilder.as_dict()` dictionary; GET (and HEAD) explain that with a 405. */
import { errorResponses, headerRefs } from './responses.js';
import { envelopeOf, ref, type Schema } from './schemas.js';

const EXAMPLE_BODY = {
  path: [{ entity_type: 'data.core.int.Int.', orm_base: 'node', tag: 'n' }],
  project: { n: ['id', 'uuid', 'attributes.value'] },
  limit: 2,
};

/** The answer of that body on the demo archive. */
const EXAMPLE_DATA = {
  n: [
    { 'attributes.value': 75, id: 23, uuid: '54774804-b824-4cc7-ae5a-b1425627532e' },
    { 'attributes.value': 35, id: 24, uuid: '77e7d9a3-9f19-41b7-9b54-ae1cc477297f' },
  ],
};

const QUERY_DICT: Schema = {
  type: 'object',
  description:
    'A `QueryBuilder.as_dict()` dictionary as AiiDA writes it: `path` (vertices with `entity_type`, `orm_base`, ' +
    '`tag` and a joining keyword to an earlier tag), `filters` and `project` by tag, `order_by`, `limit`, ' +
    '`offset`, `distinct`. `project_map`, which newer AiiDA versions write, is accepted and ignored.',
  required: ['path'],
  properties: {
    path: { type: 'array', minItems: 1, items: { type: 'object' } },
    filters: { type: 'object' },
    project: { type: 'object', additionalProperties: { type: ['array', 'null'] } },
    project_map: { type: 'object' },
    order_by: { type: ['array', 'object'] },
    limit: { type: ['integer', 'null'], minimum: 0 },
    offset: { type: ['integer', 'null'], minimum: 0 },
    distinct: { type: 'boolean' },
  },
  additionalProperties: false,
  examples: [EXAMPLE_BODY],
};

export function querybuilderPost(): Schema {
  return {
    tags: ['querybuilder'],
    summary: 'Run a QueryBuilder query',
    description:
      "The rows of the query, one list per projected tag (the last vertex's columns when nothing is projected), " +
      'each node with its `full_type`. The body is read as JSON whatever its Content-Type. An answer of more ' +
      'rows than the server allows (`--max-rows`, 10,000 by default) is refused (400): add `limit` and page ' +
      'with `offset`. Bounds of the body: `--max-body` bytes (413), `--max-vertices` path vertices and ' +
      '`--max-in-list` values in an `in` filter (400).',
    operationId: 'post_querybuilder',
    parameters: [{ $ref: '#/components/parameters/profile' }],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: QUERY_DICT, example: EXAMPLE_BODY } },
    },
    responses: {
      '200': {
        description: 'The rows, by tag; `X-Total-Count` counts them.',
        headers: headerRefs('Access-Control-Allow-Origin', 'X-Total-Count'),
        content: {
          'application/json': {
            schema: {
              type: 'object',
              allOf: [ref('Envelope')],
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  additionalProperties: { type: 'array', items: { type: 'object' } },
                  examples: [EXAMPLE_DATA],
                },
                method: { const: 'POST' },
                resource_type: { const: 'QueryBuilder' },
              },
              unevaluatedProperties: false,
            },
          },
        },
      },
      ...errorResponses(['400', '413', '500', '503']),
    },
  };
}

export function querybuilderGet(head: boolean, operationId: (m: string, p: string) => string): Schema {
  return {
    tags: ['querybuilder'],
    summary: head ? 'Explains that queries are POSTed (headers only)' : 'Explains that queries are POSTed',
    description:
      'Answers 405 with the explanation inside the envelope (`data.message`), as the reference does.',
    operationId: operationId(head ? 'head' : 'get', '/querybuilder/'),
    responses: {
      '405': {
        description: 'Use POST.',
        headers: headerRefs('Access-Control-Allow-Origin', 'X-Total-Count'),
        ...(head
          ? {}
          : {
              content: {
                'application/json': {
                  schema: envelopeOf({
                    data: {
                      type: 'object',
                      required: ['message'],
                      properties: { message: { type: 'string' } },
                      additionalProperties: false,
                    },
                    resource: 'QueryBuilder',
                    id: 'absent',
                  }),
                },
              },
            }),
      },
      ...(head ? { '400': { description: 'As GET, without a body.' } } : errorResponses(['400', '500'])),
    },
  };
}
