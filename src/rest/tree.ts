/** `/nodes/<id>/links/tree/`: a node with its incoming and outgoing neighbours, each described. */
import { describeNode } from '../domain/describe.js';
import type { StorageBackend } from '../storage/types.js';
import { COLLECTIONS } from './collections.js';
import { PK, queryCount, queryRows, windowed } from './engine.js';
import { badRequest } from './errors.js';
import { formatValue } from './format.js';
import { idFilter, recordQuery, theOne } from './identifiers.js';
import { toInt } from './pagination.js';
import { deepFreeze } from '../util/deep-freeze.js';

const COLUMNS = ['id', 'uuid', 'node_type', 'label', 'description', 'ctime', 'mtime', 'attributes'];

/** The tree's queries, shared by every request and known to the query engine by their identity. */
const MAIN_PATH = deepFreeze([{ ...COLLECTIONS.nodes.vertex, tag: 'main' }]);
const MAIN_PROJECTION = deepFreeze({ main: COLUMNS });

const neighboursQuery = (direction: 'with_outgoing' | 'with_incoming') =>
  deepFreeze({
    path: [
      ...MAIN_PATH,
      {
        ...COLLECTIONS.nodes.vertex,
        tag: 'n',
        joining_keyword: direction,
        joining_value: 'main',
        edge_tag: 'link',
      },
    ],
    filters: { main: { id: { '==': PK } } },
    project: { n: COLUMNS, link: ['label', 'type'] },
    order_by: [{ n: [{ id: { order: 'asc' } }] }],
  });

const NEIGHBOURS = {
  with_outgoing: neighboursQuery('with_outgoing'),
  with_incoming: neighboursQuery('with_incoming'),
};

const describe = (n: Record<string, unknown>) =>
  describeNode({
    node_type: String(n.node_type),
    description: String(n.description ?? ''),
    attributes: (n.attributes as Record<string, unknown>) ?? {},
  });

/**
 * A node of the tree: a neighbour with the link to it, or the node itself with its neighbours. One literal for
 * both (keys left undefined are not written in the answer): no copy of an entry per row to add its link.
 */
function entry(
  n: Record<string, unknown>,
  link?: Record<string, unknown>,
  incoming?: unknown[],
  outgoing?: unknown[],
) {
  return {
    ctime: formatValue(n.ctime),
    description: describe(n),
    id: n.id,
    mtime: formatValue(n.mtime),
    node_label: n.label,
    node_type: n.node_type,
    uuid: n.uuid,
    incoming,
    outgoing,
    link_label: link?.label,
    link_type: link?.type,
  };
}

function limitOf(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = toInt(name, value);
  if (n < 0) throw badRequest(`${name} must not be negative, got ${n}`);
  return n;
}

/** The refusal of a direction with more neighbours than an answer may hold, with where to page instead. */
function tooMany(direction: 'with_outgoing' | 'with_incoming', rawId: string, maxRows: number) {
  const [links, param] = direction === 'with_outgoing' ? ['incoming', 'in_limit'] : ['outgoing', 'out_limit'];
  return badRequest(
    `The node has more than ${maxRows} ${links} links; this server answers at most ${maxRows} in a tree: ask ` +
      `with ${param} (at most ${maxRows}), or page through them at /nodes/${rawId}/links/${links}/page/1/?perpage=400`,
  );
}

/**
 * `maxRows`: most neighbours one direction of the answer may hold (`--max-rows`). A direction asked without a
 * limit, or with a larger one, is read one row past it: a hub's whole tree (1.76 million links of a code at 10^7
 * nodes, about 500 MB written) is refused after reading a bounded window.
 */
export async function ioTree(
  backend: StorageBackend,
  rawId: string,
  inLimitRaw: unknown,
  outLimitRaw: unknown,
  maxRows = Infinity,
) {
  const inLimit = limitOf('in_limit', inLimitRaw);
  const outLimit = limitOf('out_limit', outLimitRaw);
  // The node is found by its id and read in one query, as a single node is.
  const spec = COLLECTIONS.nodes;
  const byId = idFilter(spec, rawId);
  const found = await queryRows(backend, recordQuery(spec, byId, 'main', MAIN_PATH, MAIN_PROJECTION), {
    values: byId.values,
  });
  const main = theOne(found, spec, rawId).main ?? {};
  const pk = main.id;

  const neighbours = async (direction: 'with_outgoing' | 'with_incoming', asked: number | undefined) => {
    const dict = NEIGHBOURS[direction];
    // The client's limit where it is within the bound; otherwise one row past the bound tells a larger answer.
    const bounded = asked !== undefined && asked <= maxRows ? asked : undefined;
    const limit = bounded ?? (maxRows === Infinity ? undefined : maxRows + 1);
    const rows = await queryRows(backend, limit === undefined ? dict : windowed(dict, limit), {
      values: { pk },
    });
    if (bounded === undefined && rows.length > maxRows) throw tooMany(direction, rawId, maxRows);
    // A window that is not full holds them all: no need to count.
    const total =
      bounded === undefined || rows.length < bounded
        ? rows.length
        : await queryCount(backend, dict, { values: { pk } });
    const list = rows.map((r) => entry(r.n ?? {}, r.link ?? {}));
    return { list, total };
  };
  // Both directions at once: on PostgreSQL two sessions of the request's server, one round trip of waiting.
  const [incoming, outgoing] = await Promise.all([
    neighbours('with_outgoing', inLimit),
    neighbours('with_incoming', outLimit),
  ]);
  return {
    metadata: [
      {
        sent_no_of_incomings: incoming.list.length,
        sent_no_of_outgoings: outgoing.list.length,
        total_no_of_incomings: incoming.total,
        total_no_of_outgoings: outgoing.total,
      },
    ],
    nodes: [entry(main, undefined, incoming.list, outgoing.list)],
  };
}
