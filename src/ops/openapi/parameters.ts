/**
 * The v4 query-string language in OpenAPI terms: one parameter per reserved key, and the filters of the
 * language as one form-style object (`key=value` pairs; other operators are written into the URL by hand).
 * The reserved keys are those of src/querystring/parse.ts; test/openapi.test.ts checks that every one is here.
 */
import type { Schema } from './schemas.js';

/** How the query string is read, for the document's description and the `filters` parameter. */
export const QUERY_LANGUAGE = `
## The query-string language

The query string is not \`key=value\` pairs but the v4 filter language: \`&\`-separated fields
\`<key><operator><value>\`, read after percent-decoding the whole string.

**Operators**: \`=\`, \`!=\`, \`>\`, \`<\`, \`>=\`, \`<=\`, \`=like=\` and \`=ilike=\` (SQL patterns: \`%\` any text, \`_\` one
character; \`=ilike=\` ignores case), \`=in=\` and \`=notin=\` (a comma-separated list).

**Values**: numbers (\`5\`, \`-2.5\`, \`1e3\`); quoted strings (\`"pw-7.2"\`, a quote inside written \`""\`);
\`true\` and \`false\`; date-times \`YYYY-MM-DD[THH[:MM[:SS]]][+HH[:MM]]\` (UTC unless an offset is given; \`=\` with a
date-time matches the whole day, hour, minute or second given); lists \`a,b,c\` (for \`=in=\`, \`=notin=\`, \`orderby\`,
\`attributes_filter\` and \`extras_filter\`); bare names (\`-ctime\`, column names for \`orderby\`). There is no null.

**Filters**: any key that is not reserved filters the listed records on that column, e.g.
\`?label="pw-7.2"\`, \`?ctime>=2019-03-04T10:00\`, \`?node_type=like="data.core.%"\`, \`?id=in=1,2,3\`, \`?pk=5\`
(\`pk\` is \`id\`). A key repeated is the conjunction (\`?id>3&id<9\`). Single-record, contents and file endpoints
refuse filters (404).

**Reserved keys** (each at most once, always with \`=\`): \`limit\`, \`offset\`, \`perpage\`, \`orderby\`, \`attributes\`,
\`attributes_filter\`, \`extras\`, \`extras_filter\`, \`full_type\`, \`download\`, \`download_format\`, \`filename\`,
\`in_limit\`, \`out_limit\`, \`profile\`. A key with no value and \`_\` (a cache-buster) are ignored.

**Errors**: a query string the language cannot read, a reserved key given twice or with another operator than
\`=\`, answer **404** with a message naming the column where reading stopped (the reference's status, which clients
rely on). A value of the wrong kind (\`limit=abc\`, \`limit=-1\`, \`limit=600\`, \`orderby=nosuchcolumn\`) answers
**400** with a message saying what to send.
`.trim();

const param = (name: string, description: string, schema: Schema, extra: Schema = {}): Schema => ({
  name,
  in: 'query',
  description,
  required: false,
  schema,
  // Values such as `"pw-7.2"` and `-ctime,label` are sent as they are written.
  allowReserved: true,
  ...extra,
});

const wholeNumber = { type: 'integer', minimum: 0 };
const quotedString = { type: 'string', pattern: '^".*"$' };

/** The parameters of paths (`<id>`, `<int:page>`). */
export const PATH_PARAMETERS = {
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      'The UUID of the record, or a unique prefix of it (users: the integer id). A prefix shared by several ' +
      'records, or one that names nothing, answers 404.',
    schema: { type: 'string', minLength: 1 },
    examples: { uuid: { value: '50e01d22-b9b3-45fc-b454-a04f64ab4bfb' }, prefix: { value: '50e01d22' } },
  },
  userId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The integer id of the user.',
    schema: { type: 'integer', minimum: 0 },
    example: 1,
  },
  page: {
    name: 'page',
    in: 'path',
    required: true,
    description: 'Page number, from 1 (`/page/` alone is page 1). A page past the last answers 404.',
    schema: { type: 'integer', minimum: 1 },
    example: 1,
  },
} satisfies Record<string, Schema>;

export interface PageLimits {
  /** Default and maximum rows of an answer. */
  limitDefault: number;
  perpageDefault: number;
}

/** Reusable parameters, by component name, for the server's page limits. */
export function parameters({ limitDefault, perpageDefault }: PageLimits): Record<string, Schema> {
  return {
    limit: param(
      'limit',
      `Most records to answer (default and maximum ${limitDefault}; more answers 400). Not with \`/page/\`.`,
      { ...wholeNumber, maximum: limitDefault },
    ),
    offset: param('offset', 'Records to skip before the first answered. Not with `/page/`.', wholeNumber),
    perpage: param(
      'perpage',
      `Records per page of a \`/page/\` path (default ${perpageDefault}, at most ${limitDefault}).`,
      { type: 'integer', minimum: 1, maximum: limitDefault },
    ),
    orderby: param(
      'orderby',
      'Columns to order by, comma-separated, `-` before a column for descending, e.g. `-ctime,label`; `id` is ' +
        'always the last key.',
      { type: 'string' },
    ),
    attributes: param(
      'attributes',
      'With `true`, each node carries its `attributes` (`false` is the default; any other value answers 400).',
      { type: 'boolean' },
    ),
    attributes_filter: param(
      'attributes_filter',
      'With `attributes=true`: only these attribute keys, comma-separated (e.g. `process_label,process_state`), ' +
        'a missing one as null. On `contents/attributes/`: only these keys.',
      { type: 'string' },
    ),
    extras: param('extras', 'With `true`, each node carries its `extras`.', { type: 'boolean' }),
    extras_filter: param(
      'extras_filter',
      'With `extras=true`: only these extras keys (comma-separated). On `contents/extras/`: only these keys.',
      { type: 'string' },
    ),
    full_type: param(
      'full_type',
      'Nodes of a full type `"<node_type>|<process_type>"`, quoted; `%` at the end of either part matches any ' +
        'continuation (the patterns `nodes/full_types/` answers), e.g. `"data.core.structure.StructureData.|"` or ' +
        '`"process.%|%"`. A value without `|` is read as `<value>|%`.',
      quotedString,
    ),
    download_format: param(
      'download_format',
      "Export format (see `nodes/download_formats/`), e.g. `cif`, `xsf`, `json`. Without it, a node type's " +
        'first format.',
      { type: 'string' },
    ),
    download: param(
      'download',
      '`false`: answer the export inside the JSON envelope (`data.download`) instead of as a file.',
      { type: 'boolean', default: true },
    ),
    filename: param(
      'filename',
      'Path of a folder in the repository, quoted, e.g. `"pseudo"`; the top level without it.',
      quotedString,
    ),
    filenameRequired: param('filename', "Path of a file in the node's repository, quoted.", quotedString, {
      required: true,
      example: '"aiida.in"',
    }),
    in_limit: param('in_limit', 'Most incoming links to answer (all by default).', wholeNumber),
    out_limit: param('out_limit', 'Most outgoing links to answer (all by default).', wholeNumber),
    profile: param(
      'profile',
      'Which of the served storages answers (an archive file name without `.aiida`, a profile name); the first ' +
        'one by default. An unknown name answers 400 listing the names.',
      { type: 'string' },
    ),
    user: param(
      'user',
      'Only the nodes of this user (its integer id); the one filter these endpoints take.',
      {
        type: 'integer',
      },
    ),
    filters: {
      name: 'filters',
      in: 'query',
      description:
        'Filters on columns of the listed records, `column=value` each, e.g. `{"label": "\\"pw-7.2\\""}` for ' +
        '`?label="pw-7.2"` (see the query-string language in the description for the other operators, which ' +
        'are written into the URL by hand).',
      required: false,
      style: 'form',
      explode: true,
      allowReserved: true,
      schema: { type: 'object', additionalProperties: { type: 'string' } },
      // Empty: Swagger UI fills "Try it out" with the example, and would otherwise invent keys.
      example: {},
    },
  };
}

/** The reserved keys each parameter component stands for (the `filters` and path parameters stand for none). */
export const RESERVED_KEYS = Object.values(parameters({ limitDefault: 400, perpageDefault: 20 }))
  .filter((p) => p.in === 'query' && p.name !== 'filters' && p.name !== 'user')
  .map((p) => p.name as string);
