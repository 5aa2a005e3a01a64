/**
 * Request kinds whose cost grows with the database unless the storage's indexes carry them: a page of one
 * type's nodes by creation time, and pages of the links of the nodes with the most links (a code is an input
 * of every calculation run with it: 176,000 links at 10^6 nodes; a pseudopotential, 17,700).
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../storage/types.js';
import type { RequestKind } from './mix.js';

/** Pages of the links of a node, as an explorer pages through them. */
const LINK_PAGES = 10;

/**
 * The node with the most outgoing links (in the generated data, the code of every pw calculation), and the
 * busiest of another type (a pseudopotential, input of every calculation on its element).
 */
async function busyNodes(db: Database): Promise<{ busiest: string; other?: string }> {
  const rows = await db.all({
    sql:
      'SELECT n.uuid AS uuid, n.node_type AS t FROM (SELECT input_id, count(*) AS n FROM db_dblink ' +
      'GROUP BY input_id ORDER BY count(*) DESC LIMIT 20) c JOIN db_dbnode n ON n.id = c.input_id ORDER BY c.n DESC',
    params: [],
  });
  if (rows.length === 0) throw new Error('the benchmark data has no links');
  const busiest = rows[0] as Record<string, unknown>;
  const other = rows.find((r) => r.t !== busiest.t);
  return { busiest: String(busiest.uuid), other: other ? String(other.uuid) : undefined };
}

export async function scaleMix(app: FastifyInstance, db: Database): Promise<RequestKind[]> {
  const { busiest, other } = await busyNodes(db);
  const pages = (uuid: string) =>
    Array.from(
      { length: LINK_PAGES },
      (_, i) => `/api/v4/nodes/${uuid}/links/outgoing/page/${i + 1}/?perpage=20`,
    );
  // The answer must exist on this data (a refused request would measure the error path).
  const probe = await app.inject({ method: 'GET', url: pages(busiest)[0] as string });
  if (probe.statusCode !== 200) throw new Error(`links of the busiest node: ${probe.statusCode}`);
  const kinds: RequestKind[] = [
    {
      name: 'structure page of 20 by -ctime',
      method: 'GET',
      paths: Array.from(
        { length: 25 },
        (_, i) =>
          `/api/v4/nodes/page/${i + 1}/?perpage=20&orderby=-ctime&full_type="data.core.structure.StructureData.|"`,
      ),
    },
    {
      name: `links of the busiest node, paged (${probe.headers['x-total-count']} links)`,
      method: 'GET',
      paths: pages(busiest),
    },
  ];
  if (other) {
    const first = await app.inject({ method: 'GET', url: pages(other)[0] as string });
    kinds.push({
      name: `links of another busy node, paged (${first.headers['x-total-count']} links)`,
      method: 'GET',
      paths: pages(other),
    });
  }
  return kinds;
}
