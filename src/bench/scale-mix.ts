/**
 * Request kinds whose cost grows with the database unless the storage's indexes carry them: a page of one
 * type's nodes by creation time, and pages of the links of the nodes with the most links (a code is an input
 * of every calculation run with it: 176,000 links at 10^6 nodes; a pseudopotential, 17,700).
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MAX_ROWS } from '../http/context.js';
import type { RequestKind } from './mix.js';

/** The hub tree's outgoing links: the most one tree answers by default (`--max-rows`). */
const TREE_LINKS = DEFAULT_MAX_ROWS;

/** Pages of the links of a node, as an explorer pages through them. */
const LINK_PAGES = 10;

/** Nodes that are inputs of many calculations in the generated data: codes and pseudopotentials. */
const BUSY_TYPES = ['data.core.code.installed.InstalledCode.', 'data.core.upf.UpfData.'];

/**
 * The node with the most outgoing links (in the generated data, the code of every pw calculation), and the
 * busiest of another type (a pseudopotential, input of every calculation on its element). Candidates are
 * the nodes of the busy types (their links counted by the API, an index count each): grouping all links by
 * node took 48 s at 10^7 nodes.
 */
async function busyNodes(app: FastifyInstance): Promise<{ busiest: string; other?: string }> {
  const ranked: { uuid: string; type: string; links: number }[] = [];
  for (const type of BUSY_TYPES) {
    const r = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: {
        path: [{ entity_type: type, orm_base: 'node', tag: 'n' }],
        project: { n: ['uuid'] },
        order_by: [{ n: [{ id: { order: 'asc' } }] }],
        limit: 20,
      },
    });
    for (const { uuid } of (r.json()?.data?.n ?? []) as { uuid: string }[]) {
      const links = await app.inject({
        method: 'GET',
        url: `/api/v4/nodes/${uuid}/links/outgoing/page/1/?perpage=1`,
      });
      ranked.push({ uuid, type, links: Number(links.headers['x-total-count'] ?? 0) });
    }
  }
  ranked.sort((a, b) => b.links - a.links);
  const busiest = ranked[0];
  if (!busiest || busiest.links === 0)
    throw new Error('the benchmark data has no code or pseudopotential with links');
  return { busiest: busiest.uuid, other: ranked.find((r) => r.type !== busiest.type)?.uuid };
}

export async function scaleMix(app: FastifyInstance): Promise<RequestKind[]> {
  const { busiest, other } = await busyNodes(app);
  // Pages of 20, as many of the first `most` as `total` rows fill (the conformance data has fewer than 10^4).
  const pagesOf = (page: (n: number) => string, total: number, most: number) =>
    Array.from({ length: Math.min(most, Math.ceil(total / 20)) }, (_, i) => page(i + 1));
  const totalOf = async (url: string) => {
    const answer = await app.inject({ method: 'GET', url });
    // The answer must exist on this data (a refused request would measure the error path).
    if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode}`);
    return Number(answer.headers['x-total-count'] ?? 0);
  };
  const linkPage = (uuid: string) => (page: number) =>
    `/api/v4/nodes/${uuid}/links/outgoing/page/${page}/?perpage=20`;
  const structurePage = (page: number) =>
    `/api/v4/nodes/page/${page}/?perpage=20&orderby=-ctime&full_type="data.core.structure.StructureData.|"`;
  const [links, structures] = [await totalOf(linkPage(busiest)(1)), await totalOf(structurePage(1))];
  const kinds: RequestKind[] = [
    {
      name: `links of the busiest node, paged (${links} links)`,
      method: 'GET',
      paths: pagesOf(linkPage(busiest), links, LINK_PAGES),
    },
  ];
  if (structures > 0)
    kinds.unshift({
      name: 'structure page of 20 by -ctime',
      method: 'GET',
      paths: pagesOf(structurePage, structures, 25),
    });
  // The hub's tree as large as the server answers one (its whole tree is refused past --max-rows: 17,594
  // calculations at 10^5 nodes) and a page deep into every node with attributes, where the data has that many.
  kinds.push({
    name: `links tree of the busiest node, ${TREE_LINKS.toLocaleString('en-US')} links`,
    method: 'GET',
    paths: [`/api/v4/nodes/${busiest}/links/tree/?out_limit=${TREE_LINKS}`],
  });
  const deep = '/api/v4/nodes/page/250/?perpage=400&attributes=true';
  if ((await app.inject({ method: 'GET', url: deep })).statusCode === 200)
    kinds.push({ name: 'deep page (250 of 400 nodes with attributes)', method: 'GET', paths: [deep] });
  if (other) {
    const total = await totalOf(linkPage(other)(1));
    kinds.push({
      name: `links of another busy node, paged (${total} links)`,
      method: 'GET',
      paths: pagesOf(linkPage(other), total, LINK_PAGES),
    });
  }
  return kinds;
}

/**
 * The GETs of every kind at once, as a public explorer sees them: a few variants of each plain GET kind (no
 * revalidations, codings or plots), the hub's tree and the deep page among them, cycled by every client.
 */
export function getMix(kinds: RequestKind[]): RequestKind {
  // Plots (drawn by workers, measured beside single nodes instead) are not among them.
  const plain = kinds.filter(
    (k) =>
      k.method === 'GET' &&
      k.headers === undefined &&
      k.expectStatus === undefined &&
      !k.name.includes('png'),
  );
  const paths = plain.flatMap((k) => k.paths.slice(0, 4));
  // Interleaved, so that no client sends the heavy ones back to back.
  const rounds = Math.max(...plain.map((k) => Math.min(4, k.paths.length)));
  const interleaved = Array.from({ length: rounds }, (_, i) =>
    plain.map((k) => k.paths[i]).filter((p) => p !== undefined),
  ).flat() as string[];
  return {
    name: `GET mix (${paths.length} requests of ${plain.length} kinds)`,
    method: 'GET',
    paths: interleaved,
  };
}
