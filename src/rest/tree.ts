/** `/nodes/<id>/links/tree/`: a node with its incoming and outgoing neighbours, each described. */
import { describeNode } from '../domain/describe.js';
import type { StorageBackend } from '../storage/types.js';
import { COLLECTIONS } from './collections.js';
import { PK, queryCount, queryRows } from './engine.js';
import { badRequest } from './errors.js';
import { formatValue } from './format.js';
import { resolveId } from './identifiers.js';
import { toInt } from './pagination.js';

const COLUMNS = ['id', 'uuid', 'node_type', 'label', 'description', 'ctime', 'mtime', 'attributes'];

function entry(n: Record<string, unknown>) {
  return {
    ctime: formatValue(n.ctime),
    description: describeNode({
      node_type: String(n.node_type),
      description: String(n.description ?? ''),
      attributes: (n.attributes as Record<string, unknown>) ?? {},
    }),
    id: n.id,
    mtime: formatValue(n.mtime),
    node_label: n.label,
    node_type: n.node_type,
    uuid: n.uuid,
  };
}

function limitOf(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = toInt(name, value);
  if (n < 0) throw badRequest(`${name} must not be negative, got ${n}`);
  return n;
}

export async function ioTree(
  backend: StorageBackend,
  rawId: string,
  inLimitRaw: unknown,
  outLimitRaw: unknown,
) {
  const inLimit = limitOf('in_limit', inLimitRaw);
  const outLimit = limitOf('out_limit', outLimitRaw);
  const pk = await resolveId(backend, COLLECTIONS.nodes, rawId);
  const main = (
    await queryRows(
      backend,
      {
        path: [{ entity_type: '', orm_base: 'node', tag: 'main' }],
        filters: { main: { id: { '==': PK } } },
        project: { main: COLUMNS },
      },
      { values: { pk } },
    )
  )[0]?.main as Record<string, unknown>;

  const neighbours = async (direction: 'with_outgoing' | 'with_incoming', limit: number | undefined) => {
    const dict = {
      path: [
        { entity_type: '', orm_base: 'node', tag: 'main' },
        {
          entity_type: '',
          orm_base: 'node',
          tag: 'n',
          joining_keyword: direction,
          joining_value: 'main',
          edge_tag: 'link',
        },
      ],
      filters: { main: { id: { '==': PK } } },
      project: { n: COLUMNS, link: ['label', 'type'] },
      order_by: [{ n: [{ id: { order: 'asc' } }] }],
    };
    const total = await queryCount(backend, dict, { values: { pk } });
    const rows = await queryRows(backend, limit === undefined ? dict : { ...dict, limit }, {
      values: { pk },
    });
    const list = rows.map((r) => ({
      ...entry(r.n ?? {}),
      link_label: r.link?.label,
      link_type: r.link?.type,
    }));
    return { list, total };
  };
  const incoming = await neighbours('with_outgoing', inLimit);
  const outgoing = await neighbours('with_incoming', outLimit);
  return {
    metadata: [
      {
        sent_no_of_incomings: incoming.list.length,
        sent_no_of_outgoings: outgoing.list.length,
        total_no_of_incomings: incoming.total,
        total_no_of_outgoings: outgoing.total,
      },
    ],
    nodes: [{ ...entry(main), incoming: incoming.list, outgoing: outgoing.list }],
  };
}
