/**
 * What each endpoint of the v4 table (src/http/endpoints.ts) takes and answers, written by hand. `endpointDoc`
 * throws for a pattern it does not know, so an endpoint added to the table without its description fails the
 * document's construction (and the tests) instead of going undocumented.
 */
import type { Endpoint } from '../../http/endpoints.js';
import { EXAMPLES } from './examples.js';
import { ref, type JsonAnswer, type Schema } from './schemas.js';

export interface EndpointDoc {
  summary: string;
  description?: string;
  /** Query parameters, by component name (path parameters follow from the pattern). */
  query: string[];
  json?: JsonAnswer;
  /** The answer is a file (application/octet-stream) when asked that way. */
  file?: string;
  /** Error statuses besides those every operation has (400, 500). */
  errors: string[];
  /** Answers carry X-Total-Count (and Link on `/page/` paths). */
  counted: boolean;
}

const list = (items: Schema): Schema => ({ type: 'array', items });
const keyed = (key: string, value: Schema): Schema => ({
  type: 'object',
  required: [key],
  properties: { [key]: value },
  additionalProperties: false,
});

const DATA = ['404', '503'];
const ONE = ['404', '414', '503'];

const RECORD: Record<string, string> = {
  users: 'User',
  computers: 'Computer',
  groups: 'Group',
  nodes: 'Node',
};

const NODE_LIST_QUERY = ['attributes', 'attributes_filter', 'extras', 'extras_filter', 'full_type'];

/** The five endpoints of a collection (users, computers, groups, nodes) and its processes-like cousins. */
function collectionDoc(group: string, rest: string): EndpointDoc | undefined {
  const record = RECORD[group];
  if (record === undefined) return undefined;
  const nodeQuery = group === 'nodes' ? NODE_LIST_QUERY : [];
  const listed = keyed(group, list(ref(record)));
  const filtered = ['filters', 'orderby', ...nodeQuery, 'profile'];
  switch (rest) {
    case '':
      return {
        summary: `List ${group}`,
        description:
          `The ${group} that match the filters, in \`orderby\` order (by id without it), at most \`limit\` of ` +
          'them (400 by default and at most).',
        query: ['limit', 'offset', ...filtered],
        json: { data: listed, resource: group, id: 'null' },
        errors: DATA,
        counted: true,
      };
    case '<id>/':
      return {
        summary: `One of the ${group}`,
        description: `An answer of the listing's shape holding the one record${group === 'users' ? ' (by integer id)' : ' whose UUID starts with `id`'}.`,
        query: [...nodeQuery.filter((q) => q !== 'full_type'), 'profile'],
        json: { data: listed, resource: group, id: group === 'users' ? 'integer' : 'string' },
        errors: ONE,
        counted: true,
      };
    case 'page/':
    case 'page/<int:page>/':
      return {
        summary: `A page of ${group}`,
        description: 'The listing cut into pages of `perpage` records; `Link` names the pages around.',
        query: ['perpage', ...filtered],
        json: { data: listed, resource: group, id: 'null' },
        errors: DATA,
        counted: true,
      };
    case 'projectable_properties/':
      return projectable(group);
    default:
      return undefined;
  }
}

function projectable(group: string): EndpointDoc {
  return {
    summary: `The columns of ${group}`,
    description: 'How clients show each column, and in which order. Takes no query string (any answers 404).',
    query: [],
    json: { data: ref('ProjectableProperties'), resource: group, id: 'null' },
    errors: ['404'],
    counted: true,
  };
}

const nodeJson = (data: Schema): JsonAnswer => ({ data, resource: 'nodes', id: 'string' });

function linksDoc(direction: string, paged: boolean): EndpointDoc {
  return {
    summary: `${paged ? 'A page of the' : 'The'} nodes linked ${direction === 'incoming' ? 'into' : 'out of'} a node`,
    description:
      `The nodes at the other end of the node's ${direction} links, each with \`link_label\` and \`link_type\`; ` +
      'filters, order and projections apply to them.',
    query: [
      ...(paged ? ['perpage'] : ['limit', 'offset']),
      'filters',
      'orderby',
      ...NODE_LIST_QUERY,
      'profile',
    ],
    json: nodeJson(keyed(direction, list(ref('LinkedNode')))),
    errors: ONE,
    counted: true,
  };
}

const calcjobFiles = (which: string): EndpointDoc => ({
  summary: `The ${which} files of a calculation`,
  description:
    which === 'input'
      ? "The top level (or the folder `filename`) of the calculation's repository."
      : "The top level (or the folder `filename`) of its `retrieved` folder; without one, the reference's " +
        'notice object.',
  query: ['filename', 'profile'],
  json: {
    data:
      which === 'input'
        ? list(ref('RepoEntry'))
        : { oneOf: [list(ref('RepoEntry')), ref('NoRetrievedFolder')] },
    resource: 'calcjobs',
    id: 'string',
  },
  errors: ONE,
  counted: true,
});

const FIXED: Record<string, EndpointDoc> = {
  '/': {
    summary: 'The endpoints of the API',
    description: 'One line per endpoint: group, methods and path pattern, padded into columns.',
    query: [],
    json: { data: ref('EndpointListing'), resource: 'Info', id: 'absent' },
    errors: [],
    counted: true,
  },
  '/server/': {
    summary: 'The server and API versions',
    query: [],
    json: { data: ref('ServerInfo'), resource: 'Info', id: 'absent' },
    errors: [],
    counted: true,
  },
  '/server/endpoints/': {
    summary: 'The endpoints of the API (as `/`)',
    query: [],
    json: { data: ref('EndpointListing'), resource: 'Info', id: 'absent' },
    errors: [],
    counted: true,
  },
  '/calcjobs/<id>/input_files/': calcjobFiles('input'),
  '/calcjobs/<id>/output_files/': calcjobFiles('output'),
  '/processes/<id>/report/': {
    summary: 'The log of a process',
    description: 'Its log records, by time then id.',
    query: ['profile'],
    json: { data: keyed('logs', list(ref('Log'))), resource: 'processes', id: 'string' },
    errors: ONE,
    counted: true,
  },
  '/processes/projectable_properties/': projectable('processes'),
  '/nodes/<id>/contents/attributes/': {
    summary: 'The attributes of a node',
    query: ['attributes_filter', 'profile'],
    json: nodeJson(keyed('attributes', { type: 'object' })),
    errors: ONE,
    counted: true,
  },
  '/nodes/<id>/contents/extras/': {
    summary: 'The extras of a node',
    query: ['extras_filter', 'profile'],
    json: nodeJson(keyed('extras', { type: 'object' })),
    errors: ONE,
    counted: true,
  },
  '/nodes/<id>/contents/comments/': {
    summary: 'The comments on a node',
    query: ['profile'],
    json: nodeJson(keyed('comments', list(ref('Comment')))),
    errors: ONE,
    counted: true,
  },
  '/nodes/<id>/contents/derived_properties/': {
    summary: 'Properties derived from a node',
    description:
      'For structures their formula and dimensionality, for k-points and bands their paths and Brillouin ' +
      'zone, and so on; an empty object for types without any.',
    query: ['profile'],
    json: nodeJson(keyed('derived_properties', { type: 'object' })),
    errors: [...ONE, '502'],
    counted: true,
  },
  '/nodes/<id>/download/': {
    summary: 'A node exported to a file format',
    description:
      'The export as a file (`Content-Disposition: attachment`), or with `download=false` as text inside the ' +
      'envelope. Formats by node type: `nodes/download_formats/`.',
    query: ['download_format', 'download', 'profile'],
    json: nodeJson(ref('Download')),
    file: 'The export, as a file.',
    errors: [...ONE, '501', '502'],
    counted: false,
  },
  '/nodes/<id>/links/tree/': {
    summary: 'A node with its neighbours',
    description:
      'The node and the nodes one link away, both ways, at most `in_limit` and `out_limit` of them. Each way ' +
      "holds at most the server's largest answer (`--max-rows`, 10,000): a node with more neighbours is " +
      'refused (400) unless a limit within it is asked; page them with `links/incoming/` and `links/outgoing/`.',
    query: ['in_limit', 'out_limit', 'profile'],
    json: nodeJson(ref('Tree')),
    errors: ONE,
    counted: true,
  },
  '/nodes/<id>/repo/list/': {
    summary: "The files of a node's repository",
    description: 'The entries at the top of the repository, or in the folder `filename`.',
    query: ['filename', 'profile'],
    json: nodeJson(keyed('repo_list', list(ref('RepoEntry')))),
    errors: ONE,
    counted: true,
  },
  '/nodes/<id>/repo/contents/': {
    summary: "A file of a node's repository",
    description:
      'The bytes of the file `filename`. (The reference server answered an empty file with the JSON envelope, ' +
      '`data: ""`; Quarry sends it as an empty file with `X-Total-Count: 1`.)',
    query: ['filenameRequired', 'profile'],
    json: nodeJson({ const: '' }),
    file: "The file's bytes.",
    errors: [...ONE, '502'],
    counted: false,
  },
  '/nodes/download_formats/': {
    summary: 'The export formats of each node type',
    description: 'Full type -> formats, for every type or for the one of `full_type`.',
    query: ['full_type'],
    json: {
      data: { type: 'object', additionalProperties: list({ type: 'string' }), examples: [EXAMPLES.formats] },
      resource: 'nodes',
      id: 'null',
    },
    errors: ['404', '501'],
    counted: true,
  },
  '/nodes/full_types/': {
    summary: 'The tree of node types',
    description: 'Every node type present, as a tree of `full_type` patterns.',
    query: ['profile'],
    json: { data: ref('FullTypeNamespace'), resource: 'nodes', id: 'null' },
    errors: DATA,
    counted: true,
  },
  '/nodes/full_types_count/': {
    summary: 'The tree of node types with counts',
    description: 'As `full_types/`, each level with the number of nodes below it (of one user with `user`).',
    query: ['user', 'profile'],
    json: { data: ref('FullTypeNamespace'), resource: 'nodes', id: 'null' },
    errors: DATA,
    counted: true,
  },
  '/nodes/statistics/': {
    summary: 'Node counts by type and by day of creation',
    query: ['user', 'profile'],
    json: { data: ref('Statistics'), resource: 'nodes', id: 'null' },
    errors: DATA,
    counted: true,
  },
  '/querybuilder/': {
    summary: 'Explains that queries are POSTed',
    description: 'A GET answers 405 with the explanation inside the envelope, as the reference does.',
    query: [],
    errors: [],
    counted: true,
  },
};

export function endpointDoc(endpoint: Endpoint): EndpointDoc {
  const fixed = FIXED[endpoint.pattern];
  if (fixed !== undefined) return fixed;
  const [, group = '', ...rest] = endpoint.pattern.split('/');
  const tail = rest.join('/');
  const links = /^<id>\/links\/(incoming|outgoing)\/(page\/(<int:page>\/)?)?$/.exec(tail);
  const doc = links ? linksDoc(links[1] as string, links[2] !== undefined) : collectionDoc(group, tail);
  if (doc === undefined) throw new Error(`the OpenAPI document does not describe ${endpoint.pattern}`);
  return doc;
}
