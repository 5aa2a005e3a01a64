/**
 * POST /querybuilder/ bodies: dictionaries built from the QueryBuilder's vocabulary (entity types, joins,
 * columns, operators, casts), with wrong types, nesting past the bounds and long values mixed in; mutations of
 * the bodies real clients sent; and raw texts that are not JSON or nest 100,000 levels deep.
 */
import type { Corpus, FuzzRequest } from './urls.js';
import { json, nestedValue, number, scalar, text, type Rng } from './values.js';

const VERTICES: [string, string][] = [
  ['', 'node'],
  ['node.Node.', 'node'],
  ['data.core.dict.Dict.', 'node'],
  ['data.core.structure.StructureData.', 'node'],
  ['process.calculation.calcjob.CalcJobNode.', 'node'],
  ['process.workflow.workchain.WorkChainNode.', 'node'],
  ['group.core', 'group'],
  ['group', 'group'],
  ['user', 'user'],
  ['computer', 'computer'],
  ['comment', 'comment'],
  ['log', 'log'],
  ['link', 'link'],
  ['nope', 'nope'],
];
const JOINS = [
  'with_incoming',
  'with_outgoing',
  'with_ancestors',
  'with_descendants',
  'with_node',
  'with_group',
  'with_user',
  'with_computer',
  'with_comment',
  'with_log',
  'with_nothing',
];
const FIELDS = [
  'id',
  'uuid',
  'label',
  'description',
  'node_type',
  'process_type',
  'ctime',
  'mtime',
  'time',
  'user_id',
  'dbcomputer_id',
  'email',
  'type_string',
  'content',
  'message',
  'levelname',
  'type',
  'input_id',
  'ancestor_id',
  'depth',
  'attributes',
  'extras',
  'repository_metadata',
  'nope',
  '',
];
const OPERATORS = [
  '==',
  'in',
  'like',
  'ilike',
  '<',
  '<=',
  '>',
  '>=',
  'of_type',
  'of_length',
  'longer',
  'shorter',
  'contains',
  'has_key',
];

function field(rng: Rng, corpus: Corpus): string {
  if (rng.chance(0.6)) return rng.pick(FIELDS);
  const keys = corpus.attributeKeys.length > 0 ? corpus.attributeKeys : ['value'];
  const key = rng.chance(0.75) ? rng.pick(keys) : text(rng, false);
  const deeper = rng.chance(0.2) ? `.${rng.pick(['0', '1', 'x', '99999999999999999999', ''])}` : '';
  return `${rng.pick(['attributes', 'extras'])}.${key}${deeper}${rng.chance(0.05) ? rng.pick(['\\', '\u0000', '.']) : ''}`;
}

function operand(rng: Rng, op: string): unknown {
  if (op === 'in')
    return rng.chance(0.9) ? Array.from({ length: rng.int(0, 6) }, () => scalar(rng)) : json(rng);
  if (op === 'of_type')
    return rng.pick(['object', 'array', 'string', 'number', 'boolean', 'null', 'nope', 1]);
  if (op === 'of_length' || op === 'longer' || op === 'shorter') return number(rng);
  if (op === 'like' || op === 'ilike') return rng.chance(0.85) ? text(rng) : scalar(rng);
  if (op === 'contains') return rng.chance(0.6) ? [scalar(rng)] : json(rng);
  if (op === 'has_key') return text(rng, false);
  return rng.chance(0.85) ? scalar(rng) : json(rng);
}

/** One column's condition: a value, or operators (negated now and then), or and/or lists of them. */
function condition(rng: Rng, depth: number): unknown {
  if (rng.chance(0.1)) return scalar(rng);
  if (depth < 3 && rng.chance(0.08)) {
    return {
      [rng.pick(['and', 'or'])]: Array.from({ length: rng.int(0, 3) }, () => condition(rng, depth + 1)),
    };
  }
  const out: Record<string, unknown> = {};
  for (let i = rng.int(1, 2); i > 0; i--) {
    const op = rng.chance(0.95) ? rng.pick(OPERATORS) : rng.pick(['=', '', '!', '!==', 'nope', 'and']);
    out[(rng.chance(0.15) ? '!' : '') + op] = operand(rng, op);
  }
  return out;
}

/** A tag's filters, with and/or lists nested up to past the depth bound. */
function filters(rng: Rng, corpus: Corpus, depth = 0): unknown {
  if (rng.chance(0.03)) return json(rng);
  const out: Record<string, unknown> = {};
  for (let i = rng.int(0, 3); i > 0; i--) out[field(rng, corpus)] = condition(rng, 0);
  if (rng.chance(0.2)) {
    const deep = rng.chance(0.15) ? rng.pick([31, 32, 33, 63, 64, 200]) : 0;
    out[rng.pick(['and', 'or'])] =
      deep > 0
        ? [nestedFilter(deep, rng.pick(['and', 'or']))]
        : Array.from({ length: rng.int(0, 3) }, () => filters(rng, corpus, depth + 1));
  }
  if (rng.chance(0.03)) out.or = Array.from({ length: rng.pick([1001, 5000]) }, (_, i) => ({ id: i }));
  return out;
}

function nestedFilter(levels: number, key: string): unknown {
  let f: unknown = { id: { '>': 0 } };
  for (let i = 0; i < levels; i++) f = { [key]: [f, { id: { '<': 1e9 } }] };
  return f;
}

function projection(rng: Rng, corpus: Corpus): unknown {
  const roll = rng.next();
  if (roll < 0.15) return rng.pick(['*', '**']);
  if (roll < 0.25) return { '*': {} };
  if (roll < 0.6) return field(rng, corpus);
  const options: Record<string, unknown> = {};
  if (rng.chance(0.5)) options.cast = rng.pick(['f', 'i', 't', 'b', 'j', 'd', 'x', 1]);
  if (rng.chance(0.4)) options.func = rng.pick(['count', 'max', 'min', 'sum', 'avg']);
  return { [field(rng, corpus)]: rng.chance(0.95) ? options : scalar(rng) };
}

function orderBy(rng: Rng, corpus: Corpus, tags: string[]): unknown {
  if (rng.chance(0.1)) return json(rng);
  return Array.from({ length: rng.int(0, 2) }, () => ({
    [rng.pick(tags)]: rng.chance(0.3)
      ? field(rng, corpus)
      : Array.from({ length: rng.int(1, 2) }, () => ({
          [field(rng, corpus)]: rng.chance(0.8)
            ? {
                order: rng.pick(['asc', 'desc', 'up']),
                ...(rng.chance(0.2) ? { cast: rng.pick(['f', 'i', 't', 'q']) } : {}),
              }
            : rng.pick(['asc', 'desc', 1]),
        })),
  }));
}

function count(rng: Rng): unknown {
  const roll = rng.next();
  if (roll < 0.5) return rng.int(0, 30);
  if (roll < 0.65) return null;
  if (roll < 0.9) return number(rng);
  return rng.pick(['5', true, [], {}, 2.5]);
}

export function builtBody(rng: Rng, corpus: Corpus): Record<string, unknown> {
  const path: Record<string, unknown>[] = [];
  const tags: string[] = [];
  for (let i = rng.chance(0.05) ? 14 : rng.int(1, 4); i > 0; i--) {
    const [entity_type, orm_base] = rng.pick(VERTICES);
    const tag = rng.chance(0.97) ? `t${path.length}` : rng.pick(['t0', '', 'x'.repeat(300)]);
    const vertex: Record<string, unknown> = { entity_type, orm_base, tag };
    if (path.length > 0 && rng.chance(0.85)) {
      vertex.joining_keyword = rng.pick(JOINS);
      vertex.joining_value = rng.chance(0.9) ? rng.pick(tags) : 'nope';
      if (rng.chance(0.3)) vertex.edge_tag = `e${path.length}`;
      if (rng.chance(0.2)) vertex.outerjoin = rng.chance(0.5);
    }
    if (rng.chance(0.05)) vertex.subclassing = rng.pick([false, 'no', null]);
    path.push(vertex);
    tags.push(tag);
  }
  const body: Record<string, unknown> = { path };
  const someTags = () => tags.filter(() => rng.chance(0.6));
  if (rng.chance(0.7)) body.filters = Object.fromEntries(someTags().map((t) => [t, filters(rng, corpus)]));
  if (rng.chance(0.7)) {
    body.project = Object.fromEntries(
      someTags().map((t) => [t, Array.from({ length: rng.int(0, 3) }, () => projection(rng, corpus))]),
    );
  }
  if (rng.chance(0.4)) body.order_by = orderBy(rng, corpus, tags);
  if (rng.chance(0.6)) body.limit = count(rng);
  if (rng.chance(0.3)) body.offset = count(rng);
  if (rng.chance(0.2)) body.distinct = rng.chance(0.8) ? rng.chance(0.5) : scalar(rng);
  if (rng.chance(0.05)) body[rng.pick(['project_map', 'nope', 'filters'])] = json(rng);
  return body;
}

/** A recorded body with one to three of its parts replaced. */
function mutatedBody(rng: Rng, corpus: Corpus): unknown {
  const body = structuredClone(rng.pick(corpus.recordedBodies));
  const tags = Array.isArray(body.path)
    ? (body.path as Record<string, unknown>[]).map((v) => String(v?.tag ?? 'x'))
    : ['x'];
  for (let n = rng.int(1, 3); n > 0; n--) {
    const roll = rng.next();
    if (roll < 0.3) body.filters = { [rng.pick(tags)]: filters(rng, corpus) };
    else if (roll < 0.45) body.project = { [rng.pick(tags)]: [projection(rng, corpus)] };
    else if (roll < 0.6) body[rng.pick(['limit', 'offset'])] = count(rng);
    else if (roll < 0.7) body.order_by = orderBy(rng, corpus, tags);
    else if (roll < 0.8 && Array.isArray(body.path) && body.path.length > 0) {
      const vertex = body.path[rng.int(0, body.path.length - 1)] as unknown;
      // An earlier mutation may have made the path a list of anything.
      if (typeof vertex !== 'object' || vertex === null) continue;
      (vertex as Record<string, unknown>)[
        rng.pick(['entity_type', 'orm_base', 'tag', 'joining_keyword', 'joining_value', 'edge_tag'])
      ] = rng.chance(0.5) ? text(rng, false) : scalar(rng);
    } else body[rng.pick(['path', 'filters', 'project', 'order_by', 'distinct'])] = json(rng);
  }
  return body;
}

/** Texts that are not a dictionary: broken JSON, other JSON types, and nesting far past every bound. */
function rawBody(rng: Rng): string {
  const levels = rng.pick([129, 1000, 100_000]);
  return rng.pick([
    '',
    '{',
    'null',
    '[]',
    '"path"',
    '1e999',
    '{"path": [}',
    '\u0000',
    `{"path":[{"entity_type":"","orm_base":"node","tag":"a"}],"filters":{"a":{"attributes":{"==":${'['.repeat(levels)}${']'.repeat(levels)}}}}}`,
    `{"path":[{"entity_type":"","orm_base":"node","tag":"a"}],"project":{"a":[${'{"x":'.repeat(levels)}1${'}'.repeat(levels)}]}}`,
    `${'['.repeat(levels)}${']'.repeat(levels)}`,
  ]);
}

export function queryBuilderRequest(rng: Rng, corpus: Corpus): FuzzRequest {
  const url = rng.chance(0.95)
    ? '/api/v4/querybuilder/'
    : rng.pick([
        '/api/v4/querybuilder',
        '/api/v4/querybuilder/?profile=nope',
        '/api/v4/querybuilder/?limit=1',
      ]);
  const roll = rng.next();
  const payload =
    roll < 0.06
      ? rawBody(rng)
      : JSON.stringify(
          roll < 0.35 && corpus.recordedBodies.length > 0
            ? mutatedBody(rng, corpus)
            : roll < 0.38
              ? {
                  path: [{ entity_type: '', orm_base: 'node', tag: 'a' }],
                  filters: {
                    a: { attributes: { '==': nestedValue(rng.pick([32, 33, 127, 129]), rng.chance(0.5)) } },
                  },
                }
              : builtBody(rng, corpus),
        );
  return { method: 'POST', url, payload };
}
