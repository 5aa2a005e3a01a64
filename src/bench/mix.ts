/** The requests real clients make, as the benchmark drives them: explorer pages, single nodes, files, queries. */
import type { FastifyInstance } from 'fastify';

export interface RequestKind {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

async function first(app: FastifyInstance, query: string): Promise<string> {
  const r = await app.inject({ method: 'GET', url: `/api/v4/nodes/?${query}&limit=1&orderby=id` });
  const uuid = r.json()?.data?.nodes?.[0]?.uuid;
  if (typeof uuid !== 'string') throw new Error(`the benchmark data has no node for ${query}`);
  return uuid;
}

/** Resolve the mix against the served data (ids of a structure, a calcjob, a workchain…). */
export async function requestMix(app: FastifyInstance): Promise<RequestKind[]> {
  const calc = await first(app, 'node_type="process.calculation.calcjob.CalcJobNode."');
  const structure = await first(app, 'node_type="data.core.structure.StructureData."');
  const workchain = await first(app, 'node_type="process.workflow.workchain.WorkChainNode."');
  const get = (name: string, path: string): RequestKind => ({ name, method: 'GET', path: `/api/v4${path}` });
  return [
    get('node page of 20 by -ctime', '/nodes/page/3/?perpage=20&orderby=-ctime'),
    get(
      'process page with attributes_filter',
      '/nodes/page/2/?perpage=20&orderby=-ctime&full_type="process.%25|%25"&attributes=true&attributes_filter=process_label,process_state,exit_status',
    ),
    get('single node', `/nodes/${structure}/`),
    get('node attributes', `/nodes/${structure}/contents/attributes/`),
    get('links incoming', `/nodes/${calc}/links/incoming/`),
    get('links outgoing', `/nodes/${workchain}/links/outgoing/`),
    get('links tree', `/nodes/${calc}/links/tree/?in_limit=10&out_limit=10`),
    get('repo list', `/nodes/${calc}/repo/list/`),
    get('repo contents', `/nodes/${calc}/repo/contents/?filename="aiida.in"`),
    get('statistics', '/nodes/statistics/'),
    get('full_types_count', '/nodes/full_types_count/'),
    {
      name: 'querybuilder join + JSON filter',
      method: 'POST',
      path: '/api/v4/querybuilder/',
      body: {
        path: [
          { entity_type: 'process.calculation.calcjob.CalcJobNode.', orm_base: 'node', tag: 'c' },
          {
            entity_type: 'data.core.dict.Dict.',
            orm_base: 'node',
            tag: 'o',
            joining_keyword: 'with_incoming',
            joining_value: 'c',
          },
        ],
        filters: { c: { 'attributes.process_state': 'finished' }, o: { 'attributes.energy_units': 'eV' } },
        project: { c: ['id'], o: ['attributes.energy'] },
        limit: 20,
      },
    },
  ];
}
