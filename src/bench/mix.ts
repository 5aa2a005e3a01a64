/**
 * The requests real clients make, as the benchmark drives them: explorer pages, single nodes, files, queries.
 * Each kind cycles over many variants (nodes spread over the whole archive, several pages), as clients do:
 * a figure measured on one URL repeated would flatter any cache.
 */
import type { FastifyInstance } from 'fastify';
import { httpCachingKinds } from './mix-http.js';

/** What the aiida-explorer's grid posts to `/querybuilder/`: every data node, newest first, up to 5,000. */
/** Calculations (`c`) and the dictionaries they output (`o`): the path of the posted joins the benchmark asks. */
export const CALCULATIONS_AND_OUTPUT_DICTS = [
  { entity_type: 'process.calculation.calcjob.CalcJobNode.', orm_base: 'node', tag: 'c' },
  {
    entity_type: 'data.core.dict.Dict.',
    orm_base: 'node',
    tag: 'o',
    joining_keyword: 'with_incoming',
    joining_value: 'c',
  },
];

export const EXPLORER_GRID_QUERY = {
  path: [{ entity_type: '', orm_base: 'node', tag: 'node' }],
  filters: { node: { node_type: { like: 'data.%' } } },
  project: { node: ['id', 'uuid', 'node_type', 'label', 'ctime', 'mtime'] },
  order_by: [{ node: [{ ctime: { order: 'desc' } }] }],
  limit: 5000,
  project_map: {},
};
export interface RequestKind {
  name: string;
  method: 'GET' | 'POST';
  /** The variants of the request, cycled through by every connection. */
  paths: string[];
  body?: unknown;
  /** Headers of each variant (If-None-Match, Accept-Encoding), in the order of `paths`. */
  headers?: Record<string, string>[];
  /** The status every answer must have (default: any 2xx). */
  expectStatus?: number;
  /**
   * Every request posts `body` with a `limit` never asked before (from 5,000 up): a query no answer or plan is
   * kept for, as each visitor's own query is.
   */
  fresh?: boolean;
}

/** How many different nodes each per-node kind cycles over (fewer where the archive has fewer). */
const VARIANTS = 64;

/**
 * UUIDs of up to `n` nodes of `nodeType`, spread evenly over the archive's id range. Each is the first at or
 * after an evenly spaced id, found through the QueryBuilder (whose count honours its limit): an offset deep
 * into 10^7 nodes, or the total count of a listing, would read every node before it on each request.
 */
async function sample(app: FastifyInstance, nodeType: string, n: number): Promise<string[]> {
  const first = async (id: { '>=': number } | undefined, order: 'asc' | 'desc') => {
    const r = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: {
        path: [{ entity_type: nodeType, orm_base: 'node', tag: 'n' }],
        filters: { n: id ? { id } : {} },
        project: { n: ['id', 'uuid'] },
        order_by: [{ n: [{ id: { order } }] }],
        limit: 1,
      },
    });
    if (r.statusCode !== 200)
      throw new Error(`sampling ${nodeType}: ${r.statusCode} ${r.body.slice(0, 200)}`);
    return r.json()?.data?.n?.[0] as { id: number; uuid: string } | undefined;
  };
  const [low, high] = [await first(undefined, 'asc'), await first(undefined, 'desc')];
  if (!low || !high) throw new Error(`the benchmark data has no node of type ${nodeType}`);
  const uuids = new Set<string>();
  for (let i = 0; i < n; i++) {
    const node = await first({ '>=': Math.floor(low.id + (i * (high.id - low.id + 1)) / n) }, 'asc');
    if (node) uuids.add(node.uuid);
  }
  return [...uuids];
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Resolve the mix against the served data (ids of structures, calcjobs, workchains…). */
export async function requestMix(app: FastifyInstance): Promise<RequestKind[]> {
  const calcs = await sample(app, 'process.calculation.calcjob.CalcJobNode.', VARIANTS);
  const structures = await sample(app, 'data.core.structure.StructureData.', VARIANTS);
  const workchains = await sample(app, 'process.workflow.workchain.WorkChainNode.', VARIANTS);
  const get = (name: string, paths: string[]): RequestKind => ({
    name,
    method: 'GET',
    paths: paths.map((p) => `/api/v4${p}`),
  });
  const kinds: RequestKind[] = [
    get(
      'node page of 20 by -ctime',
      range(1, 25).map((page) => `/nodes/page/${page}/?perpage=20&orderby=-ctime`),
    ),
    get(
      'process page with attributes_filter',
      range(1, 10).map(
        (page) =>
          `/nodes/page/${page}/?perpage=20&orderby=-ctime&full_type="process.%25|%25"&attributes=true&attributes_filter=process_label,process_state,exit_status`,
      ),
    ),
    get(
      'single node',
      structures.map((u) => `/nodes/${u}/`),
    ),
    get(
      'node attributes',
      structures.map((u) => `/nodes/${u}/contents/attributes/`),
    ),
    get(
      'links incoming',
      calcs.map((u) => `/nodes/${u}/links/incoming/`),
    ),
    get(
      'links outgoing',
      workchains.map((u) => `/nodes/${u}/links/outgoing/`),
    ),
    get(
      'links tree',
      calcs.map((u) => `/nodes/${u}/links/tree/?in_limit=10&out_limit=10`),
    ),
    get(
      'repo list',
      calcs.map((u) => `/nodes/${u}/repo/list/`),
    ),
    get(
      'repo contents',
      calcs.map((u) => `/nodes/${u}/repo/contents/?filename="aiida.in"`),
    ),
    get('statistics', ['/nodes/statistics/']),
    get('full_types_count', ['/nodes/full_types_count/']),
    {
      // What the aiida-explorer's grid posts: every data node, newest first, up to 5,000 (one variant: an
      // archive's answer is kept after its first run, as it is for every visitor of the grid).
      name: 'querybuilder explorer grid',
      method: 'POST',
      paths: ['/api/v4/querybuilder/'],
      body: EXPLORER_GRID_QUERY,
    },
    {
      // As a browser asks it (the aiida-explorer is a web page): its answer compressed, 418 kB as 73 kB on rich.
      name: 'querybuilder explorer grid, br',
      method: 'POST',
      paths: ['/api/v4/querybuilder/'],
      body: EXPLORER_GRID_QUERY,
      headers: [{ 'Accept-Encoding': 'gzip, deflate, br' }],
    },
    {
      // The same rows asked as a query of its own each time (a limit never asked before): what the grid costs
      // when nothing is kept, as with other filters or orders.
      name: 'querybuilder explorer grid, never asked',
      method: 'POST',
      paths: ['/api/v4/querybuilder/'],
      body: EXPLORER_GRID_QUERY,
      fresh: true,
    },
    {
      name: 'querybuilder join + JSON filter',
      method: 'POST',
      paths: ['/api/v4/querybuilder/'],
      body: {
        path: CALCULATIONS_AND_OUTPUT_DICTS,
        filters: { c: { 'attributes.process_state': 'finished' }, o: { 'attributes.energy_units': 'eV' } },
        project: { c: ['id'], o: ['attributes.energy'] },
        limit: 20,
      },
    },
  ];
  return [...kinds, ...(await httpCachingKinds(app, kinds))];
}
