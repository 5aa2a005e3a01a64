/**
 * The component schemas of the OpenAPI document: the records the v4 API answers and the envelope around them.
 * Shapes the reference fixes are closed (`additionalProperties: false`), so that a key added or renamed by
 * mistake fails the test that checks every recorded answer against them (test/openapi.test.ts).
 */
import { EXAMPLES } from './examples.js';

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const freeObject = { type: 'object' } as const;

/** An object whose listed keys are all required and no other key is allowed. */
function closed(properties: Record<string, unknown>, extra: Schema = {}): Schema {
  return {
    type: 'object',
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
    ...extra,
  };
}

const uuid = { type: 'string', format: 'uuid', description: 'UUID of the record' };

const NODE_REQUIRED = [
  'id',
  'uuid',
  'label',
  'node_type',
  'process_type',
  'full_type',
  'ctime',
  'mtime',
  'user_id',
];

/** The columns of a node record, shared by Node and LinkedNode. */
const NODE_PROPERTIES = {
  id: int,
  uuid,
  label: str,
  node_type: { type: 'string', description: 'e.g. `data.core.dict.Dict.`' },
  process_type: { ...nullableStr, description: 'Process class entry point, or null for data nodes' },
  full_type: { type: 'string', description: '`<node_type>|<process_type>`' },
  ctime: ref('Datetime'),
  mtime: ref('Datetime'),
  user_id: int,
  attributes: freeObject,
  extras: freeObject,
};

export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  Datetime: {
    type: 'string',
    description:
      'A date-time as the reference writes it: RFC 1123 in GMT, whole seconds ' +
      "(JavaScript's `new Date()` reads it).",
    pattern:
      '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d\\d:\\d\\d:\\d\\d GMT$',
    examples: ['Mon, 04 Mar 2019 17:08:57 GMT'],
  },
  User: closed(
    { id: int, first_name: str, last_name: str, institution: str },
    { description: 'A user. The e-mail address is never answered.', examples: [EXAMPLES.user] },
  ),
  Computer: closed(
    {
      id: int,
      uuid,
      label: str,
      hostname: str,
      description: str,
      scheduler_type: str,
      transport_type: str,
      metadata: {
        ...freeObject,
        description: "The computer's settings (shebang, workdir, mpirun command, ...)",
      },
    },
    { examples: [EXAMPLES.computer] },
  ),
  Group: closed(
    {
      id: int,
      uuid,
      label: str,
      type_string: { type: 'string', description: 'e.g. `core`, `core.auto`, `core.import`' },
      description: str,
      extras: freeObject,
      time: ref('Datetime'),
      user_id: int,
    },
    { examples: [EXAMPLES.group] },
  ),
  Node: {
    type: 'object',
    description:
      'A node: its default columns, plus `attributes` and `extras` when the query string asks for them ' +
      '(`attributes=true`, `extras=true`; with `attributes_filter`/`extras_filter` only the keys named, a missing ' +
      'one as null).',
    required: NODE_REQUIRED,
    properties: NODE_PROPERTIES,
    additionalProperties: false,
    examples: [EXAMPLES.node],
  },
  LinkedNode: {
    description: "A node reached through a link, with the link's label and type.",
    type: 'object',
    required: [...NODE_REQUIRED, 'link_label', 'link_type'],
    properties: {
      ...NODE_PROPERTIES,
      link_label: str,
      link_type: ref('LinkType'),
    },
    additionalProperties: false,
    examples: [EXAMPLES.linkedNode],
  },
  LinkType: {
    type: 'string',
    enum: ['create', 'return', 'input_calc', 'input_work', 'call_calc', 'call_work'],
  },
  ProjectableProperties: closed(
    {
      fields: {
        type: 'object',
        description: 'Column name -> how clients show it',
        additionalProperties: {
          type: 'object',
          required: ['display_name', 'help_text', 'is_display', 'is_foreign_key', 'type'],
          properties: {
            display_name: str,
            help_text: str,
            is_display: { type: 'boolean' },
            is_foreign_key: { type: 'boolean' },
            type: str,
            related_column: str,
            related_resource: str,
            valid_choices: freeObject,
          },
          additionalProperties: false,
        },
      },
      ordering: { type: 'array', items: str },
    },
    { examples: [EXAMPLES.projectable] },
  ),
  FullTypeNamespace: {
    type: 'object',
    description:
      'A tree of node types: each level a `full_type` pattern for the `full_type` parameter; ' +
      '`counter` (full_types_count only) counts the nodes below.',
    required: ['full_type', 'label', 'namespace', 'path', 'subspaces'],
    properties: {
      full_type: {
        ...nullableStr,
        description: 'null for the "Unregistered" level (types whose plugin is not installed)',
      },
      label: str,
      namespace: str,
      path: str,
      subspaces: { type: 'array', items: ref('FullTypeNamespace') },
      counter: int,
    },
    additionalProperties: false,
  },
  Statistics: closed(
    {
      total: int,
      types: { type: 'object', additionalProperties: int, description: 'node_type -> number of nodes' },
      ctime_by_day: {
        type: 'object',
        propertyNames: { pattern: '^\\d{4}-\\d\\d-\\d\\d$' },
        additionalProperties: int,
        description: 'YYYY-MM-DD -> nodes created that day',
      },
    },
    { examples: [EXAMPLES.statistics] },
  ),
  TreeNode: {
    type: 'object',
    required: ['ctime', 'description', 'id', 'mtime', 'node_label', 'node_type', 'uuid'],
    properties: {
      ctime: ref('Datetime'),
      description: str,
      id: int,
      mtime: ref('Datetime'),
      node_label: str,
      node_type: str,
      uuid,
      link_label: str,
      link_type: ref('LinkType'),
      incoming: { type: 'array', items: ref('TreeNode') },
      outgoing: { type: 'array', items: ref('TreeNode') },
    },
    additionalProperties: false,
  },
  Tree: closed(
    {
      nodes: { type: 'array', items: ref('TreeNode'), minItems: 1, maxItems: 1 },
      metadata: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: closed({
          sent_no_of_incomings: int,
          sent_no_of_outgoings: int,
          total_no_of_incomings: int,
          total_no_of_outgoings: int,
        }),
      },
    },
    { examples: [EXAMPLES.tree] },
  ),
  RepoEntry: closed({ name: str, type: { type: 'string', enum: ['FILE', 'DIRECTORY'] } }),
  Comment: closed({ created_time: ref('Datetime'), modified_time: ref('Datetime'), message: str, user: str }),
  Log: closed(
    { dbnode_id: int, levelname: str, loggername: str, message: str, time: ref('Datetime') },
    { examples: [EXAMPLES.log] },
  ),
  NoRetrievedFolder: closed(
    { data: { const: 'This node does not have retrieved folder' }, status: { const: 200 } },
    {
      description:
        'What `output_files/` answers for a calculation without a `retrieved` folder (as the reference).',
    },
  ),
  Download: closed(
    {
      download: closed({
        data: { type: 'string', description: 'The export as text' },
        filename: str,
        status: { const: 200 },
      }),
    },
    { examples: [EXAMPLES.download] },
  ),
  ServerInfo: closed(
    {
      API_major_version: str,
      API_minor_version: str,
      API_revision_version: str,
      API_prefix: str,
      AiiDA_version: { type: 'string', description: 'The AiiDA version recorded with the data served' },
      archive_export_version: {
        type: 'string',
        description:
          'Only for an AiiDA 0.x/1.x archive (which Quarry converts at its first opening): its export version, 0.1 to 0.13',
      },
    },
    {
      examples: [EXAMPLES.server],
      required: [
        'API_major_version',
        'API_minor_version',
        'API_revision_version',
        'API_prefix',
        'AiiDA_version',
      ],
    },
  ),
  EndpointListing: closed({
    available_endpoints: {
      type: 'array',
      items: { type: 'string', pattern: '^[a-z]+ +[A-Z,]+ +/' },
      description: '`<group> <methods> <path pattern>`, padded into columns, sorted',
    },
  }),
  Envelope: {
    type: 'object',
    description:
      'What every JSON answer of the API carries around its `data`: the request as the server read it. Its keys ' +
      'are closed per endpoint (with `data`, and `id` except on `/`, `/server/` and `/querybuilder/`).',
    required: ['method', 'path', 'query_string', 'resource_type', 'url', 'url_root'],
    properties: {
      method: { type: 'string', enum: ['GET', 'POST'] },
      path: { type: 'string', pattern: '^/', description: 'The request path, percent-decoded' },
      query_string: {
        type: 'string',
        description: 'The query string without `?`, percent-decoded; empty if none',
      },
      resource_type: str,
      url: { type: 'string', description: 'The full request URL' },
      url_root: { type: 'string', pattern: '/$', description: 'The base URL of the server, ending in `/`' },
    },
  },
  EnvelopedError: {
    description:
      'A refusal inside the envelope, `data.message` (`GET /querybuilder/`; see 400 for the other).',
    type: 'object',
    allOf: [ref('Envelope')],
    required: ['data'],
    properties: { data: closed({ message: { type: 'string', minLength: 1 } }) },
    unevaluatedProperties: false,
  },
  Error: {
    type: 'object',
    description:
      "A refusal or failure: `message` says what went wrong and what to fix (the wording is Quarry's). " +
      'An unknown URL also lists the endpoints.',
    required: ['message'],
    properties: {
      message: { type: 'string', minLength: 1 },
      available_endpoints: { type: 'array', items: str },
    },
    additionalProperties: false,
  },
};

/** The JSON answer of a GET: its `data`, `resource_type` and what its envelope's `id` holds. */
export interface JsonAnswer {
  data: Schema;
  resource: string;
  /** `absent`: no `id` key (`/`, `/server/`); `null`; or the id of the path, as given. */
  id: 'absent' | 'null' | 'string' | 'integer';
}

/** The envelope of one endpoint: the shared keys, this endpoint's `data`, `resource_type` and `id`. */
export function envelopeOf(answer: JsonAnswer): Schema {
  const id =
    answer.id === 'absent'
      ? undefined
      : answer.id === 'null'
        ? { type: 'null' }
        : { type: answer.id, description: 'The id of the path, as given' };
  return {
    type: 'object',
    allOf: [ref('Envelope')],
    required: id === undefined ? ['data'] : ['data', 'id'],
    properties: { data: answer.data, resource_type: { const: answer.resource }, ...(id ? { id } : {}) },
    unevaluatedProperties: false,
  };
}
