/** QueryBuilder model -> SQL AST. Dialect-free: the renderers turn the AST into text and parameters. */
import {
  QueryValidationError,
  type FieldRef,
  type Projection,
  type QueryDict,
  type Vertex,
} from './model.js';
import type { Expr, Join, Select, WalkCte } from './sql-ast.js';
import { SCHEMA, type ColumnType, type EntityKind } from './schema.js';
import { andOf, col, columnsOf, eq, filterExpr, typeOf, type TagInfo } from './conditions.js';

/** Provenance walks follow data flow only, as aiida's recursive joins do. */
const WALK_LINK_TYPES = ['create', 'input_calc'];
const WALK_MAX_DEPTH = 10_000;

export type Decoder = {
  tag: string;
  key: string;
  /** `float`: a value cast to a float in the query, written as one even when whole. */
  columns: { as: string; name: string; type: ColumnType | 'float' }[];
  shape: 'scalar' | 'entity' | 'spread';
};

export interface CompiledSelect {
  select: Select;
  /** The same query counted: rows it returns (honouring distinct, limit and offset). */
  count: Select | { wrap: Select };
  decoders: Decoder[];
}

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
  /** Aliases that some condition reads. */
  const conditioned = new Set<string>();
  const condition = (expr: Expr, info: TagInfo) => {
    conditions.push(expr);
    if (andOf([expr]) !== undefined) conditioned.add(info.alias);
  };
  for (const vertex of q.vertices) {
    const info = tags.get(vertex.tag) as TagInfo;
    if (vertex.typeFilter) condition(filterExpr(vertex.typeFilter, info), info);
  }
  for (const [tag, filter] of q.filters) {
    const info = tags.get(tag);
    if (info) condition(filterExpr(filter, info), info);
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

  // Aggregates fold the rows into one: an order has nothing to sort (and PostgreSQL refuses one by a column).
  const aggregated = decoders.some(isAggregate);
  const orderBy = (aggregated ? [] : q.order).map((o) => {
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
  const plain = !q.distinct && q.limit === undefined && q.offset === undefined && !aggregated;
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
        joins: joins.filter((j) => !countable(q, tags, conditioned).has(j.alias)),
        orderBy: [],
      }
    : { wrap: { ...select, orderBy: [] } };
  return { select, count, decoders };
}

/** Joins that reach a node through a key column that is NOT NULL and a foreign key to db_dbnode.id. */
const KEYED_NODE_JOINS = new Set(['with_incoming', 'with_outgoing', 'with_group']);

/**
 * Aliases of the vertices a count can leave out: nodes reached through a link (or a group membership) whose
 * row only has to exist: an inner join, no condition on the node, no later vertex joined to it. The link's
 * key column is NOT NULL and a foreign key to the nodes (in every AiiDA storage), so each link row meets
 * exactly one node: the count is the same without the join, and PostgreSQL does not read every node to hash
 * them (at 10^6 nodes, the count of a code's 176,000 outgoing links fell from 1.4 s to a few ms).
 */
function countable(q: QueryDict, tags: Map<string, TagInfo>, conditioned: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const vertex of q.vertices.slice(1)) {
    const join = vertex.join;
    const alias = (tags.get(vertex.tag) as TagInfo).alias;
    if (!join || join.outer || vertex.kind !== 'node' || !KEYED_NODE_JOINS.has(join.keyword)) continue;
    if (conditioned.has(alias) || q.vertices.some((v) => v.join?.target === vertex.tag)) continue;
    out.add(alias);
  }
  return out;
}

const isAggregate = (d: Decoder) => d.columns.some((c) => c.as.startsWith('a'));

function info0Table(vertex: Vertex): string {
  return SCHEMA[vertex.kind].table;
}

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
  const add = (expr: Expr, type: ColumnType | 'float', name: string, aggregate = false) => {
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
  let outType: ColumnType | 'float' = p.field.path.length > 0 ? 'json' : type;
  if (p.cast) {
    const castTo = ({ f: 'real', i: 'int', t: 'text', b: 'bool', j: 'json', d: 'datetime' } as const)[p.cast];
    if (castTo !== 'json' && castTo !== 'datetime') {
      expr = castExpr(expr, p.cast);
      outType = castTo === 'real' ? 'float' : castTo;
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
