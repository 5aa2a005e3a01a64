/** Validate a QueryBuilder `as_dict()` dictionary (JSON) into the typed model; every problem is a 400. */
import {
  DEFAULT_LIMITS,
  INT_COLUMN_RANGE,
  MAX_COUNT,
  type Cast,
  type EdgeKind,
  type FieldRef,
  type FilterNode,
  type Operator,
  type OrderItem,
  type Projection,
  type QueryDict,
  type QueryLimits,
} from './model.js';
import { checkAggregates, checkDistinctOrder } from './consistency.js';
import { isParam } from './params.js';
import { parsePath } from './parse-path.js';
import { checkValueShape, fail, hasNul, isObject, parseBool } from './validate.js';
import { COLUMN_ALIASES, SCHEMA, type EntityKind } from './schema.js';

const TOP_LEVEL_KEYS = new Set([
  'path',
  'filters',
  'project',
  'project_map',
  'order_by',
  'limit',
  'offset',
  'distinct',
]);
const OPERATORS = new Set<Operator>([
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
]);
const CASTS = new Set<Cast>(['f', 'i', 't', 'b', 'j', 'd']);

/** The columns a tag can name: its entity's, or its edge's. */
type TagKinds = Map<string, EntityKind | 'walk' | 'none'>;

export function parseQueryDict(input: unknown, limits: QueryLimits = DEFAULT_LIMITS): QueryDict {
  if (!isObject(input)) fail('query', 'must be a JSON object (a QueryBuilder.as_dict() dictionary)');
  const dict = input as Record<string, unknown>;
  for (const key of Object.keys(dict)) {
    if (!TOP_LEVEL_KEYS.has(key)) fail(key, `unknown key; expected one of ${[...TOP_LEVEL_KEYS].join(', ')}`);
  }
  const vertices = parsePath(dict.path, limits);
  const kinds: TagKinds = new Map();
  for (const v of vertices) {
    kinds.set(v.tag, v.kind);
    if (v.join) kinds.set(v.join.edgeTag, edgeEntity(v.join.edgeKind));
  }
  const projections = parsePerTag(dict.project, 'project', kinds, (value, where, kind) =>
    parseProjections(value, where, kind, limits),
  );
  const order = parseOrder(dict.order_by, kinds);
  const distinct = parseBool(dict.distinct, 'distinct');
  checkAggregates(projections);
  if (distinct) checkDistinctOrder(order, projections);
  return {
    vertices,
    filters: parsePerTag(dict.filters, 'filters', kinds, (value, where, kind) =>
      parseTagFilters(value, where, kind, limits),
    ),
    projections,
    order,
    limit: parseCount(dict.limit, 'limit'),
    offset: parseCount(dict.offset, 'offset'),
    distinct,
  };
}

function edgeEntity(kind: EdgeKind): EntityKind | 'walk' | 'none' {
  return kind === 'link' ? 'link' : kind === 'group_node' ? 'group_node' : kind;
}

function parsePerTag<T>(
  value: unknown,
  section: string,
  kinds: TagKinds,
  parse: (value: unknown, where: string, kind: EntityKind | 'walk' | 'none') => T | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  if (value === undefined || value === null) return out;
  if (!isObject(value)) fail(section, 'must be an object keyed by tag');
  for (const [tag, spec] of Object.entries(value as Record<string, unknown>)) {
    const kind =
      kinds.get(tag) ?? fail(`${section}.${tag}`, 'unknown tag; it is not a vertex or edge of "path"');
    const parsed = parse(spec, `${section}.${tag}`, kind);
    if (parsed !== undefined) out.set(tag, parsed);
  }
  return out;
}

/** `attributes.a.b` -> column + JSON path, checked against the entity's columns. */
export function parseField(name: string, where: string, kind: EntityKind | 'walk' | 'none'): FieldRef {
  const [head = '', ...path] = name.split('.');
  if (kind === 'none') fail(where, 'this edge has no columns');
  const columns: Record<string, string> =
    kind === 'walk' ? { ancestor_id: 'int', descendant_id: 'int', depth: 'int' } : SCHEMA[kind].columns;
  const column = kind === 'walk' ? head : (COLUMN_ALIASES[kind]?.[head] ?? head);
  const type = columns[column];
  if (type === undefined) {
    fail(where, `"${head}" is not a column; valid columns are ${Object.keys(columns).join(', ')}`);
  }
  if (path.length > 0 && type !== 'json')
    fail(where, `"${head}" is not a JSON column, so "${name}" has no meaning`);
  if (path.includes('')) fail(where, `"${name}" is not a valid JSON path: a key between dots is empty`);
  // Any other character is written escaped in the database's JSON path; NUL cannot be stored in a key at all.
  if (hasNul(name)) fail(where, 'keys cannot hold NUL characters (\\u0000)');
  return { column, path };
}

/** One more level of `and`/`or` lists, refused past the limit before the parser recurses into it. */
function nested(depth: number, where: string, limits: QueryLimits): number {
  if (depth >= limits.maxFilterDepth) {
    fail(where, `"and"/"or" lists nest more than ${limits.maxFilterDepth} levels deep; flatten them`);
  }
  return depth + 1;
}

function parseTagFilters(
  value: unknown,
  where: string,
  kind: EntityKind | 'walk' | 'none',
  limits: QueryLimits,
  depth = 0,
) {
  if (!isObject(value)) fail(where, 'must be an object of filters');
  const items = Object.entries(value as Record<string, unknown>).map(([key, spec]): FilterNode => {
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(spec)) fail(`${where}.${key}`, 'must be a list of filter objects');
      const inner = nested(depth, `${where}.${key}`, limits);
      const parts = (spec as unknown[]).map((s, i) =>
        parseTagFilters(s, `${where}.${key}[${i}]`, kind, limits, inner),
      );
      return { kind: key, items: parts.filter((p): p is FilterNode => p !== undefined) } as FilterNode;
    }
    const field = parseField(key, `${where}.${key}`, kind);
    return parseFieldFilter(field, spec, `${where}.${key}`, limits, depth);
  });
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0] : ({ kind: 'and', items } as FilterNode);
}

function parseFieldFilter(
  field: FieldRef,
  spec: unknown,
  where: string,
  limits: QueryLimits,
  depth: number,
): FilterNode {
  if (!isObject(spec)) return { kind: 'cmp', field, op: '==', value: checkValue(spec, where, '==', limits) };
  const items = Object.entries(spec).map(([rawOp, value]): FilterNode => {
    if (rawOp === 'and' || rawOp === 'or') {
      if (!Array.isArray(value)) fail(`${where}.${rawOp}`, 'must be a list of conditions');
      const inner = nested(depth, `${where}.${rawOp}`, limits);
      return {
        kind: rawOp,
        items: (value as unknown[]).map((v, i) =>
          parseFieldFilter(field, v, `${where}.${rawOp}[${i}]`, limits, inner),
        ),
      };
    }
    const negated = rawOp.startsWith('!');
    let op = negated ? rawOp.slice(1) : rawOp;
    if (op === '=' || op === '') op = '==';
    if (!OPERATORS.has(op as Operator)) {
      fail(
        where,
        `unknown operator "${rawOp}"; use one of ${[...OPERATORS].join(', ')} (prefix ! to negate)`,
      );
    }
    const node: FilterNode = {
      kind: 'cmp',
      field,
      op: op as Operator,
      value: checkValue(value, where, op, limits),
    };
    return negated ? { kind: 'not', item: node } : node;
  });
  if (items.length === 0) fail(where, 'an empty condition object has no meaning');
  return items.length === 1 ? (items[0] as FilterNode) : { kind: 'and', items };
}

const PARAM_OPERATORS = new Set(['==', '<', '<=', '>', '>=']);

function checkValue(value: unknown, where: string, op: string, limits: QueryLimits): unknown {
  if (isParam(value)) {
    if (!PARAM_OPERATORS.has(op))
      fail(where, `a bound parameter compares with ==, <, <=, > or >=, not "${op}"`);
    return value;
  }
  checkValueShape(value, where, limits.maxValueDepth);
  if (op === 'in') {
    if (!Array.isArray(value)) fail(where, '"in" takes a list of values');
    if ((value as unknown[]).length > limits.maxInList) {
      fail(where, `"in" list has ${(value as unknown[]).length} values; at most ${limits.maxInList}`);
    }
  }
  if (['of_length', 'longer', 'shorter'].includes(op)) {
    // Array lengths are PostgreSQL integers: a number past their range cannot be compared with one.
    const { min, max } = INT_COLUMN_RANGE;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      fail(where, `"${op}" takes a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
  }
  if (op === 'like' || op === 'ilike') {
    if (typeof value !== 'string') fail(where, `"${op}" takes a string pattern`);
    if ((value as string).length > limits.maxPatternLength) {
      fail(
        where,
        `the "${op}" pattern has ${(value as string).length} characters; at most ${limits.maxPatternLength}`,
      );
    }
  }
  if (op === 'has_key' && typeof value !== 'string') fail(where, '"has_key" takes a key name (string)');
  if (
    op === 'of_type' &&
    !['object', 'array', 'string', 'number', 'boolean', 'null'].includes(String(value))
  ) {
    fail(where, '"of_type" takes one of object, array, string, number, boolean, null');
  }
  return value;
}

function parseProjections(
  value: unknown,
  where: string,
  kind: EntityKind | 'walk' | 'none',
  limits: QueryLimits,
) {
  const list = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  if (list.length > limits.maxProjections) fail(where, `at most ${limits.maxProjections} projections`);
  const out: Projection[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push(projection(item, {}, where, kind));
    else if (isObject(item))
      for (const [name, opts] of Object.entries(item)) out.push(projection(name, opts, where, kind));
    else fail(where, 'projections are column names or {"column": {...}} objects');
  }
  return out;
}

function projection(
  name: string,
  opts: unknown,
  where: string,
  kind: EntityKind | 'walk' | 'none',
): Projection {
  if (!isObject(opts)) fail(`${where}.${name}`, 'projection options must be an object such as {"cast": "f"}');
  const o = opts as Record<string, unknown>;
  if (name === '*') return { kind: 'entity', key: '*' };
  if (name === '**') return { kind: 'all' };
  const field = parseField(name, `${where}.${name}`, kind);
  const cast = o.cast === undefined ? undefined : parseCast(o.cast, `${where}.${name}.cast`, field, kind);
  let func: 'count' | 'max' | 'min' | 'sum' | undefined;
  if (o.func !== undefined) {
    if (!['count', 'max', 'min', 'sum'].includes(String(o.func)))
      fail(`${where}.${name}.func`, 'use count, max, min or sum');
    func = o.func as typeof func;
    if (func === 'sum' && field.path.length === 0 && cast !== 'f' && cast !== 'i') {
      const type = kind === 'walk' ? 'int' : SCHEMA[kind as EntityKind].columns[field.column];
      if (type === 'text' || type === 'datetime')
        fail(`${where}.${name}.func`, `sum adds numbers; "${name}" is a ${type} column`);
    }
  }
  return { kind: 'field', key: name, field, cast, func };
}

/** A cast letter, refused where PostgreSQL has no such conversion at all (a date or a UUID to a number). */
function parseCast(value: unknown, where: string, field: FieldRef, kind: EntityKind | 'walk' | 'none'): Cast {
  if (!CASTS.has(value as Cast))
    fail(where, 'cast letters are f (float), i (int), t (text), b (bool), j (JSON), d (date)');
  if (
    field.path.length === 0 &&
    kind !== 'walk' &&
    kind !== 'none' &&
    ['f', 'i', 'b'].includes(value as string)
  ) {
    const type = SCHEMA[kind].columns[field.column];
    const what = type === 'datetime' ? 'a date-time' : field.column === 'uuid' ? 'a UUID' : undefined;
    if (what)
      fail(where, `"${field.column}" holds ${what}, which has no "${String(value)}" form; cast it with "t"`);
  }
  return value as Cast;
}

function parseOrder(value: unknown, kinds: TagKinds): OrderItem[] {
  if (value === undefined || value === null) return [];
  const blocks = Array.isArray(value) ? value : [value];
  const out: OrderItem[] = [];
  for (const block of blocks) {
    if (!isObject(block)) fail('order_by', 'entries must be objects keyed by tag');
    for (const [tag, spec] of Object.entries(block as Record<string, unknown>)) {
      const where = `order_by.${tag}`;
      const kind = kinds.get(tag) ?? fail(where, 'unknown tag; it is not a vertex or edge of "path"');
      const items =
        typeof spec === 'string'
          ? [spec]
          : Array.isArray(spec)
            ? spec
            : isObject(spec)
              ? [spec]
              : fail(where, 'bad order');
      for (const item of items as unknown[]) {
        if (typeof item === 'string') {
          out.push({ tag, field: parseField(item, where, kind), desc: false });
          continue;
        }
        if (!isObject(item)) fail(where, 'order entries are column names or {"column": {"order": "desc"}}');
        for (const [name, how] of Object.entries(item as Record<string, unknown>)) {
          const opts =
            typeof how === 'string' ? { order: how } : isObject(how) ? how : fail(where, 'bad order options');
          const order = (opts as Record<string, unknown>).order ?? 'asc';
          if (order !== 'asc' && order !== 'desc') fail(`${where}.${name}`, 'order must be "asc" or "desc"');
          const castRaw = (opts as Record<string, unknown>).cast;
          const field = parseField(name, `${where}.${name}`, kind);
          out.push({
            tag,
            field,
            desc: order === 'desc',
            cast:
              castRaw === undefined ? undefined : parseCast(castRaw, `${where}.${name}.cast`, field, kind),
          });
        }
      }
    }
  }
  return out;
}

function parseCount(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_COUNT) {
    fail(
      where,
      `must be a whole number from 0 to ${MAX_COUNT} (2^53 - 1), or null; got ${JSON.stringify(value)}`,
    );
  }
  return value as number;
}
