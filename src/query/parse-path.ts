/** The `path` of a QueryBuilder dictionary: its vertices, their types and the relationships joining them. */
import { JOIN_KEYWORDS, type EdgeKind, type JoinKeyword, type QueryLimits, type Vertex } from './model.js';
import { entityKindOf, typeFilterOf } from './entity-types.js';
import { fail, isObject, parseBool } from './validate.js';

export function parsePath(path: unknown, limits: QueryLimits): Vertex[] {
  if (!Array.isArray(path) || path.length === 0) fail('path', 'must be a non-empty list of vertices');
  const list = path as unknown[];
  if (list.length > limits.maxVertices)
    fail('path', `has ${list.length} vertices; at most ${limits.maxVertices}`);
  const vertices: Vertex[] = [];
  const tags = new Set<string>();
  list.forEach((raw, i) => {
    const where = `path[${i}]`;
    if (!isObject(raw)) fail(where, 'must be an object with entity_type, orm_base and tag');
    const entry = raw as Record<string, unknown>;
    const kind = entityKindOf(entry.entity_type, entry.orm_base, where);
    const tag =
      typeof entry.tag === 'string' && entry.tag !== '' ? entry.tag : fail(where, 'needs a "tag" string');
    if (tags.has(tag)) fail(where, `tag "${tag}" is used twice`);
    const subclassing =
      entry.subclassing === undefined ? true : parseBool(entry.subclassing, `${where}.subclassing`);
    const vertex: Vertex = {
      tag,
      kind,
      typeFilter: typeFilterOf(kind, entry.entity_type, subclassing, where),
    };
    if (i > 0) vertex.join = parseJoin(entry, where, kind, vertices, tag);
    tags.add(tag);
    vertices.push(vertex);
  });
  return vertices;
}

function parseJoin(
  entry: Record<string, unknown>,
  where: string,
  kind: Vertex['kind'],
  earlier: Vertex[],
  tag: string,
) {
  let keyword = entry.joining_keyword;
  let target = entry.joining_value;
  if (keyword === undefined || keyword === null) {
    // Older dictionaries name the relationship as a key: {"with_incoming": "calc"}.
    const legacy = JOIN_KEYWORDS.find((k) => typeof entry[k] === 'string');
    keyword = legacy;
    target = legacy ? entry[legacy] : undefined;
  }
  if (keyword === undefined) {
    const previous = earlier[earlier.length - 1] as Vertex;
    keyword = defaultJoin(previous.kind, kind) ?? fail(where, 'needs a joining_keyword (e.g. with_incoming)');
    target = previous.tag;
  }
  if (!JOIN_KEYWORDS.includes(keyword as JoinKeyword)) {
    fail(
      `${where}.joining_keyword`,
      `unknown relationship "${String(keyword)}"; use one of ${JOIN_KEYWORDS.join(', ')}`,
    );
  }
  const targetVertex = earlier.find((v) => v.tag === target);
  if (!targetVertex)
    fail(`${where}.joining_value`, `"${String(target)}" is not the tag of an earlier vertex`);
  const edgeKind = edgeKindOf(keyword as JoinKeyword, kind, (targetVertex as Vertex).kind, where);
  const edgeTag =
    typeof entry.edge_tag === 'string' && entry.edge_tag !== ''
      ? entry.edge_tag
      : `${String(target)}--${tag}`;
  return {
    keyword: keyword as JoinKeyword,
    target: target as string,
    edgeTag,
    edgeKind,
    outer:
      entry.outerjoin === undefined || entry.outerjoin === null ? false : parseBool(entry.outerjoin, where),
  };
}

function defaultJoin(previous: Vertex['kind'], kind: Vertex['kind']): JoinKeyword | undefined {
  if (previous === 'node' && kind === 'node') return 'with_incoming';
  if (previous === 'group' && kind === 'node') return 'with_group';
  if (previous === 'node' && kind === 'group') return 'with_node';
  return undefined;
}

/** Which pairs of entities each relationship connects (new vertex, earlier vertex), as the QueryBuilder allows. */
const ALLOWED: Record<JoinKeyword, [Vertex['kind'], Vertex['kind']][]> = {
  with_incoming: [['node', 'node']],
  with_outgoing: [['node', 'node']],
  with_ancestors: [['node', 'node']],
  with_descendants: [['node', 'node']],
  with_node: [
    ['group', 'node'],
    ['comment', 'node'],
    ['log', 'node'],
    ['user', 'node'],
    ['computer', 'node'],
  ],
  with_group: [
    ['node', 'group'],
    ['user', 'group'],
  ],
  with_user: [
    ['node', 'user'],
    ['group', 'user'],
    ['comment', 'user'],
  ],
  with_computer: [['node', 'computer']],
  with_comment: [
    ['node', 'comment'],
    ['user', 'comment'],
  ],
  with_log: [['node', 'log']],
};

function edgeKindOf(
  keyword: JoinKeyword,
  kind: Vertex['kind'],
  target: Vertex['kind'],
  where: string,
): EdgeKind {
  if (!ALLOWED[keyword].some(([a, b]) => a === kind && b === target)) {
    fail(where, `${keyword} cannot join a ${kind} to a ${target}`);
  }
  if (keyword === 'with_incoming' || keyword === 'with_outgoing') return 'link';
  if (keyword === 'with_ancestors' || keyword === 'with_descendants') return 'walk';
  if ((keyword === 'with_group' || keyword === 'with_node') && (kind === 'group' || target === 'group')) {
    return kind === 'user' ? 'none' : 'group_node';
  }
  return 'none';
}
