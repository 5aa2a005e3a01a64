/** QueryBuilder model -> SQL AST. Dialect-free: the renderers turn the AST into text and parameters. */
import {
  QueryValidationError,
  type FieldRef,
  type FilterNode,
  type Projection,
  type QueryDict,
  type Vertex,
} from './model.js';
import type { Expr, Join, Select, WalkCte } from './sql-ast.js';
import { isNullable, SCHEMA, type ColumnType, type EntityKind } from './schema.js';

/** Provenance walks follow data flow only, as aiida's recursive joins do. */
const WALK_LINK_TYPES = ['create', 'input_calc'];
const WALK_MAX_DEPTH = 10_000;

export type Decoder = {
  tag: string;
  key: string;
  columns: { as: string; name: string; type: ColumnType }[];
  shape: 'scalar' | 'entity' | 'spread';
};

export interface CompiledSelect {
  select: Select;
  /** The same query counted: rows it returns (honouring distinct, limit and offset). */
  count: Select | { wrap: Select };
  decoders: Decoder[];
}

interface TagInfo {
  alias: string;
  kind: EntityKind | 'walk';
}

const WALK_COLUMNS: Record<string, ColumnType> = { ancestor_id: 'int', descendant_id: 'int', depth: 'int' };

export function compile(q: QueryDict): CompiledSelect {
  const tags = new Map<string, TagInfo>();
  const joins: Join[] = [];
  const ctes: WalkCte[] = [];
  const first = q.vertices[0] as Vertex;
  tags.set(first.tag, { alias: 't0', kind: first.kind });
  q.vertices.slice(1).forEach((vertex, j) => {
    const i = j + 1;
    joins.push(...joinVertex(q, vertex, i, tags, ctes));
  });

  const conditions: Expr[] = [];
  for (const vertex of q.vertices) {
    const info = tags.get(vertex.tag) as TagInfo;
    if (vertex.typeFilter) conditions.push(filterExpr(vertex.typeFilter, info));
  }
  for (const [tag, filter] of q.filters) {
    const info = tags.get(tag);
    if (info) conditions.push(filterExpr(filter, info));
  }
  const where = andOf(conditions);

  const columns: Select['columns'] = [];
  const decoders: Decoder[] = [];
  for (const [tag, projections] of q.projections) {
    const info = tags.get(tag);
    if (!info) continue;
    for (const p of projections) decoders.push(projectionColumns(p, tag, info, columns));
  }
  if (columns.length === 0) columns.push({ expr: { t: 'const', value: 'NULL' }, as: 'c_none' });

  const orderBy = q.order.map((o) => {
    const info = tags.get(o.tag) as TagInfo;
    const base = fieldExpr(o.field, info, o.field.path.length > 0 ? 'value' : 'json');
    return { expr: o.cast ? castExpr(base, o.cast) : base, desc: o.desc };
  });

  const from = { table: info0Table(first), alias: 't0' };
  const select: Select = {
    ctes,
    distinct: q.distinct,
    columns,
    from,
    joins,
    where,
    orderBy,
    limit: q.limit,
    offset: q.offset,
  };
  const plain = !q.distinct && q.limit === undefined && q.offset === undefined && !decoders.some(isAggregate);
  const count = plain
    ? {
        ...select,
        columns: [
          {
            expr: {
              t: 'agg' as const,
              fn: 'count' as const,
              item: { t: 'const' as const, value: 'NULL' as const },
            },
            as: 'n',
          },
        ],
        orderBy: [],
      }
    : { wrap: { ...select, orderBy: [] } };
  return { select, count, decoders };
}

const isAggregate = (d: Decoder) => d.columns.some((c) => c.as.startsWith('a'));

function info0Table(vertex: Vertex): string {
  return SCHEMA[vertex.kind].table;
}

function columnsOf(kind: EntityKind | 'walk'): Record<string, ColumnType> {
  return kind === 'walk' ? WALK_COLUMNS : SCHEMA[kind].columns;
}

function col(alias: string, column: string): Expr {
  return { t: 'col', alias, column };
}

const eq = (left: Expr, right: Expr): Expr => ({ t: 'cmp', op: '=', left, right });

function joinVertex(
  q: QueryDict,
  vertex: Vertex,
  i: number,
  tags: Map<string, TagInfo>,
  ctes: WalkCte[],
): Join[] {
  const join = vertex.join;
  if (!join) throw new QueryValidationError(`path[${i}]: needs a relationship to an earlier vertex`);
  const kind = join.outer ? 'left' : 'inner';
  const v = (tags.get(join.target) as TagInfo).alias;
  const n = `t${i}`;
  const e = `e${i}`;
  const table = SCHEMA[vertex.kind].table;
  tags.set(vertex.tag, { alias: n, kind: vertex.kind });
  const twoStep = (edgeTable: string, edgeOn: Expr, nodeOn: Expr, edgeKind: EntityKind): Join[] => {
    tags.set(join.edgeTag, { alias: e, kind: edgeKind });
    return [
      { kind, table: edgeTable, alias: e, on: edgeOn },
      { kind, table, alias: n, on: nodeOn },
    ];
  };
  const direct = (on: Expr): Join[] => [{ kind, table, alias: n, on }];

  switch (join.keyword) {
    case 'with_incoming':
      return twoStep(
        'db_dblink',
        eq(col(e, 'input_id'), col(v, 'id')),
        eq(col(n, 'id'), col(e, 'output_id')),
        'link',
      );
    case 'with_outgoing':
      return twoStep(
        'db_dblink',
        eq(col(e, 'output_id'), col(v, 'id')),
        eq(col(n, 'id'), col(e, 'input_id')),
        'link',
      );
    case 'with_ancestors':
    case 'with_descendants': {
      const down = join.keyword === 'with_ancestors';
      const target = q.vertices.find((x) => x.tag === join.target) as Vertex;
      ctes.push({
        name: e,
        direction: down ? 'down' : 'up',
        seed: seedSelect(q, target),
        linkTypes: WALK_LINK_TYPES,
        maxDepth: WALK_MAX_DEPTH,
      });
      tags.set(join.edgeTag, { alias: e, kind: 'walk' });
      const [near, far] = down ? ['ancestor_id', 'descendant_id'] : ['descendant_id', 'ancestor_id'];
      return [
        { kind, table: e, alias: e, on: eq(col(e, near), col(v, 'id')) },
        { kind, table, alias: n, on: eq(col(n, 'id'), col(e, far)) },
      ];
    }
    case 'with_node':
      if (vertex.kind === 'group') {
        return twoStep(
          'db_dbgroup_dbnodes',
          eq(col(e, 'dbnode_id'), col(v, 'id')),
          eq(col(n, 'id'), col(e, 'dbgroup_id')),
          'group_node',
        );
      }
      if (vertex.kind === 'user') return direct(eq(col(n, 'id'), col(v, 'user_id')));
      if (vertex.kind === 'computer') return direct(eq(col(n, 'id'), col(v, 'dbcomputer_id')));
      return direct(eq(col(n, 'dbnode_id'), col(v, 'id')));
    case 'with_group':
      if (vertex.kind === 'user') return direct(eq(col(n, 'id'), col(v, 'user_id')));
      return twoStep(
        'db_dbgroup_dbnodes',
        eq(col(e, 'dbgroup_id'), col(v, 'id')),
        eq(col(n, 'id'), col(e, 'dbnode_id')),
        'group_node',
      );
    case 'with_user':
      return direct(eq(col(n, 'user_id'), col(v, 'id')));
    case 'with_computer':
      return direct(eq(col(n, 'dbcomputer_id'), col(v, 'id')));
    case 'with_comment':
      return direct(eq(col(n, 'id'), col(v, vertex.kind === 'user' ? 'user_id' : 'dbnode_id')));
    case 'with_log':
      return direct(eq(col(n, 'id'), col(v, 'dbnode_id')));
  }
}

/** The ids a walk starts from: the target vertex's own type filter and filters (a superset is still correct). */
function seedSelect(q: QueryDict, target: Vertex): Select {
  const info: TagInfo = { alias: 's', kind: target.kind };
  const parts: Expr[] = [];
  if (target.typeFilter) parts.push(filterExpr(target.typeFilter, info));
  const own = q.filters.get(target.tag);
  if (own) parts.push(filterExpr(own, info));
  return {
    ctes: [],
    distinct: false,
    columns: [{ expr: col('s', 'id'), as: 'id' }],
    from: { table: SCHEMA.node.table, alias: 's' },
    joins: [],
    where: andOf(parts),
    orderBy: [],
  };
}

function typeOf(field: FieldRef, info: TagInfo): ColumnType {
  return columnsOf(info.kind)[field.column] as ColumnType;
}

function fieldExpr(field: FieldRef, info: TagInfo, mode: 'json' | 'value'): Expr {
  if (typeOf(field, info) === 'json')
    return { t: 'json', alias: info.alias, column: field.column, path: field.path, mode };
  return col(info.alias, field.column);
}

function castExpr(item: Expr, cast: string): Expr {
  const to = ({ f: 'real', i: 'integer', t: 'text', b: 'boolean' } as const)[cast as 'f' | 'i' | 't' | 'b'];
  if (!to) return item;
  return { t: 'cast', item: item.t === 'json' ? { ...item, mode: 'value' } : item, to };
}

function projectionColumns(p: Projection, tag: string, info: TagInfo, columns: Select['columns']): Decoder {
  const add = (expr: Expr, type: ColumnType, name: string, aggregate = false) => {
    const as = `${aggregate ? 'a' : 'c'}${columns.length}`;
    columns.push({ expr, as });
    return { as, name, type };
  };
  const all = () =>
    Object.entries(columnsOf(info.kind)).map(([name, type]) => add(col(info.alias, name), type, name));
  if (p.kind === 'entity') return { tag, key: '*', columns: all(), shape: 'entity' };
  if (p.kind === 'all') return { tag, key: '**', columns: all(), shape: 'spread' };
  const type = typeOf(p.field, info);
  let expr = fieldExpr(p.field, info, 'json');
  let outType: ColumnType = p.field.path.length > 0 ? 'json' : type;
  if (p.cast) {
    const castTo = ({ f: 'real', i: 'int', t: 'text', b: 'bool', j: 'json', d: 'datetime' } as const)[p.cast];
    if (castTo !== 'json' && castTo !== 'datetime') {
      expr = castExpr(expr, p.cast);
      outType = castTo === 'real' ? 'int' : castTo;
    } else {
      outType = castTo === 'datetime' ? 'datetime' : outType;
      if (castTo === 'datetime' && expr.t === 'json') expr = { ...expr, mode: 'value' };
    }
  }
  if (p.func) {
    expr = { t: 'agg', fn: p.func, item: expr.t === 'json' ? { ...expr, mode: 'value' } : expr };
    outType = p.func === 'count' ? 'int' : outType === 'json' ? 'int' : outType;
  }
  return { tag, key: p.key, columns: [add(expr, outType, p.key, p.func !== undefined)], shape: 'scalar' };
}

const NUMERIC = ['integer', 'real'];
const typeIn = (field: FieldRef, info: TagInfo, types: string[]): Expr => ({
  t: 'in',
  item: { t: 'json', alias: info.alias, column: field.column, path: field.path, mode: 'type' },
  values: types.map((value) => ({ t: 'param', value })),
});

/** The conjunction of conditions, without those known to hold; undefined when nothing is left. */
function andOf(conditions: Expr[]): Expr | undefined {
  const rest = conditions.filter((e) => !(e.t === 'const' && e.value === 'TRUE'));
  if (rest.length === 0) return undefined;
  return rest.length === 1 ? rest[0] : { t: 'and', items: rest };
}

export function filterExpr(node: FilterNode, info: TagInfo): Expr {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // Conditions known to hold drop out of an AND, and make an OR hold.
      const items = node.items.map((i) => filterExpr(i, info));
      const holds = (e: Expr) => e.t === 'const' && e.value === 'TRUE';
      if (node.kind === 'or') {
        if (items.some(holds)) return { t: 'const', value: 'TRUE' };
        return items.length === 0 ? { t: 'const', value: 'FALSE' } : { t: 'or', items };
      }
      return andOf(items) ?? { t: 'const', value: 'TRUE' };
    }
    case 'not':
      return { t: 'not', item: filterExpr(node.item, info) };
    case 'cmp':
      return typeOf(node.field, info) === 'json' ? jsonCondition(node, info) : columnCondition(node, info);
  }
}

function columnCondition(node: Extract<FilterNode, { kind: 'cmp' }>, info: TagInfo): Expr {
  const item = col(info.alias, node.field.column);
  const type = typeOf(node.field, info);
  const param = (value: unknown): Expr => ({
    t: 'param',
    value: columnValue(value, type, node.field.column),
  });
  switch (node.op) {
    case '==':
      return node.value === null ? { t: 'isnull', item } : eq(item, param(node.value));
    case 'in':
      return (node.value as unknown[]).length === 0
        ? { t: 'const', value: 'FALSE' }
        : { t: 'in', item, values: (node.value as unknown[]).map(param) };
    case 'like':
    case 'ilike':
      // `LIKE '%'` matches every non-NULL value (it is the type filter of "all nodes"); said so, the planner
      // counts from an index instead of testing the pattern on every row.
      if (node.value === '%') {
        const nullable = info.kind === 'walk' || isNullable(info.kind, node.field.column);
        return nullable ? { t: 'not', item: { t: 'isnull', item } } : { t: 'const', value: 'TRUE' };
      }
      return {
        t: 'like',
        item,
        pattern: { t: 'param', value: node.value },
        caseInsensitive: node.op === 'ilike',
      };
    case '<':
    case '<=':
    case '>':
    case '>=':
      return { t: 'cmp', op: node.op, left: item, right: param(node.value) };
    default:
      throw new QueryValidationError(
        `${node.field.column}: "${node.op}" applies to JSON columns and paths only`,
      );
  }
}

/** Datetime columns take Date objects or ISO 8601 strings; other columns take JSON scalars. */
function columnValue(value: unknown, type: ColumnType, column: string): unknown {
  if (type === 'datetime' && typeof value === 'string') {
    const parsed = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(parsed.getTime()))
      throw new QueryValidationError(`${column}: "${value}" is not a date-time`);
    return parsed;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    throw new QueryValidationError(`${column}: compare with a single value, not ${JSON.stringify(value)}`);
  }
  return value;
}

function jsonCondition(node: Extract<FilterNode, { kind: 'cmp' }>, info: TagInfo): Expr {
  const { field, value } = node;
  const at = (mode: 'value' | 'type' | 'length' | 'json', path = field.path): Expr => ({
    t: 'json',
    alias: info.alias,
    column: field.column,
    path,
    mode,
  });
  const typed = (v: unknown, inner: Expr): Expr => {
    if (typeof v === 'number') return { t: 'and', items: [typeIn(field, info, NUMERIC), inner] };
    if (typeof v === 'string') return { t: 'and', items: [typeIn(field, info, ['text']), inner] };
    if (v instanceof Date) return { t: 'and', items: [typeIn(field, info, ['text']), inner] };
    throw new QueryValidationError(
      `${field.column}.${field.path.join('.')}: "${node.op}" compares numbers or strings`,
    );
  };
  switch (node.op) {
    case '==':
      return jsonEquals(field, info, value);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return typed(value, { t: 'cmp', op: node.op, left: at('value'), right: { t: 'param', value } });
    case 'in':
      return {
        t: 'in',
        item: at('value'),
        values: (value as unknown[]).map((v) => ({ t: 'param', value: v })),
      };
    case 'like':
    case 'ilike':
      return typed(value, {
        t: 'like',
        item: at('value'),
        pattern: { t: 'param', value },
        caseInsensitive: node.op === 'ilike',
      });
    case 'of_type': {
      const map: Record<string, string[]> = {
        object: ['object'],
        array: ['array'],
        string: ['text'],
        null: ['null'],
        boolean: ['true', 'false'],
        number: NUMERIC,
      };
      return typeIn(field, info, map[value as string] as string[]);
    }
    case 'of_length':
    case 'longer':
    case 'shorter': {
      const op = node.op === 'of_length' ? '=' : node.op === 'longer' ? '>' : '<';
      return {
        t: 'and',
        items: [
          typeIn(field, info, ['array']),
          { t: 'cmp', op, left: at('length'), right: { t: 'param', value } },
        ],
      };
    }
    case 'has_key':
      return {
        t: 'and',
        items: [
          typeIn(field, info, ['object']),
          { t: 'not', item: { t: 'isnull', item: at('type', [...field.path, String(value)]) } },
        ],
      };
    case 'contains':
      return jsonContains(field, info, value);
  }
}

function jsonEquals(field: FieldRef, info: TagInfo, value: unknown): Expr {
  const at = (mode: 'value' | 'json'): Expr => ({
    t: 'json',
    alias: info.alias,
    column: field.column,
    path: field.path,
    mode,
  });
  if (value === null) return typeIn(field, info, ['null']);
  if (typeof value === 'boolean') return typeIn(field, info, [value ? 'true' : 'false']);
  if (typeof value === 'number')
    return { t: 'and', items: [typeIn(field, info, NUMERIC), eq(at('value'), { t: 'param', value })] };
  if (typeof value === 'string' || value instanceof Date) {
    return { t: 'and', items: [typeIn(field, info, ['text']), eq(at('value'), { t: 'param', value })] };
  }
  if (Array.isArray(value)) {
    return {
      t: 'and',
      items: [typeIn(field, info, ['array']), eq(at('json'), { t: 'param', value: JSON.stringify(value) })],
    };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return {
    t: 'and',
    items: [
      typeIn(field, info, ['object']),
      ...entries.map(([k, v]) => jsonEquals({ ...field, path: [...field.path, k] }, info, v)),
    ],
  };
}

/** PostgreSQL's `@>`: arrays contain the given elements, objects contain the given key/value pairs. */
function jsonContains(field: FieldRef, info: TagInfo, value: unknown): Expr {
  if (Array.isArray(value)) {
    return {
      t: 'and',
      items: [
        typeIn(field, info, ['array']),
        ...value.map((element): Expr => {
          if (typeof element === 'object' && element !== null) {
            throw new QueryValidationError(
              `${field.column}: "contains" with nested objects in a list is not supported`,
            );
          }
          return {
            t: 'jsonArrayHas',
            alias: info.alias,
            column: field.column,
            path: field.path,
            value: element,
          };
        }),
      ],
    };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    return {
      t: 'and',
      items: [
        typeIn(field, info, ['object']),
        ...entries.map(([k, v]) =>
          typeof v === 'object' && v !== null
            ? jsonContains({ ...field, path: [...field.path, k] }, info, v)
            : jsonEquals({ ...field, path: [...field.path, k] }, info, v),
        ),
      ],
    };
  }
  return jsonEquals(field, info, value);
}
