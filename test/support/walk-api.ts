/**
 * Every GET a client can make of a served archive's data, found by walking it: listings, each node's
 * endpoints, its repository folders and files, groups, computers, users, and a few QueryBuilder posts. Two
 * servings of the same data answer each of them alike.
 */
import type { FastifyInstance } from 'fastify';

const API = '/api/v4';

export interface Answer {
  status: number;
  body: unknown;
}

export async function ask(app: FastifyInstance, url: string, payload?: unknown): Promise<Answer> {
  const res = await app.inject(
    payload === undefined ? { method: 'GET', url } : { method: 'POST', url, payload: payload as object },
  );
  let body: unknown = res.body;
  if ((res.headers['content-type'] ?? '').toString().includes('json')) body = JSON.parse(res.body);
  else if (res.rawPayload.length > 0 && !/^text\//.test(String(res.headers['content-type']))) {
    body = res.rawPayload.toString('base64');
  }
  return { status: res.statusCode, body };
}

const QUERIES: unknown[] = [
  {
    path: [{ entity_type: 'data.', orm_base: 'node', tag: 'n' }],
    project: { n: ['id', 'uuid', 'node_type'] },
  },
  {
    path: [
      { entity_type: 'process.', orm_base: 'node', tag: 'p' },
      { entity_type: 'data.', orm_base: 'node', tag: 'd', with_incoming: 'p' },
    ],
    project: { p: ['id', 'process_type'], d: ['id', 'label'] },
    order_by: [{ d: ['id'] }],
  },
  {
    path: [{ entity_type: 'group.core', orm_base: 'group', tag: 'g' }],
    project: { g: ['id', 'label', 'type_string'] },
  },
  {
    // Link ids: aiida-core numbers them 1..n in data.json's order.
    path: [
      { entity_type: '', orm_base: 'node', tag: 'a' },
      { entity_type: '', orm_base: 'node', tag: 'b', with_incoming: 'a', edge_tag: 'l' },
    ],
    project: { l: ['id', 'label', 'type', 'input_id', 'output_id'] },
    order_by: [{ l: ['id'] }],
  },
  {
    path: [{ orm_base: 'computer', tag: 'c' }],
    project: { c: ['*'] },
  },
];

/** The urls (and QueryBuilder posts) of a walk through the data as `app` serves it. */
export async function walkUrls(app: FastifyInstance): Promise<{ url: string; payload?: unknown }[]> {
  const urls: { url: string; payload?: unknown }[] = [];
  const get = (url: string) => urls.push({ url });
  for (const base of ['nodes', 'groups', 'computers', 'users']) {
    get(`${API}/${base}/page/1/?orderby=id&perpage=400`);
  }
  for (const path of [
    'nodes/statistics',
    'nodes/full_types',
    'nodes/full_types_count',
    'nodes/download_formats',
  ])
    get(`${API}/${path}/`);
  const nodes = (await ask(app, `${API}/nodes/page/1/?orderby=id&perpage=400`)).body as {
    data: { nodes: { uuid: string; node_type: string }[] };
  };
  for (const { uuid, node_type } of nodes.data.nodes) {
    const n = `${API}/nodes/${uuid}`;
    for (const tail of [
      '/',
      '/links/incoming/?orderby=id',
      '/links/outgoing/?orderby=id',
      '/links/tree/',
      '/contents/attributes/',
      '/contents/extras/',
      '/contents/comments/',
      '/contents/derived_properties/',
    ])
      get(`${n}${tail}`);
    if (node_type.startsWith('data.')) get(`${n}/download/`);
    if (node_type.includes('StructureData')) get(`${n}/download/?download_format=xsf`);
    if (node_type.startsWith('process.calculation.calcjob')) {
      get(`${API}/calcjobs/${uuid}/input_files/`);
      get(`${API}/calcjobs/${uuid}/output_files/`);
    }
    if (node_type.startsWith('process.')) get(`${API}/processes/${uuid}/report/`);
    const folders = [''];
    while (folders.length > 0) {
      const folder = folders.shift()!;
      const q = folder === '' ? '' : `?filename=${encodeURIComponent(JSON.stringify(folder))}`;
      get(`${n}/repo/list/${q}`);
      const listed = (await ask(app, `${n}/repo/list/${q}`)).body as {
        data?: { repo_list?: { name: string; type: string }[] };
      };
      for (const entry of listed.data?.repo_list ?? []) {
        const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (entry.type === 'DIRECTORY') folders.push(path);
        else get(`${n}/repo/contents?filename=${encodeURIComponent(JSON.stringify(path))}`);
      }
    }
  }
  const groups = (await ask(app, `${API}/groups/?orderby=id`)).body as {
    data: { groups: { uuid: string }[] };
  };
  for (const { uuid } of groups.data.groups) get(`${API}/groups/${uuid}/`);
  for (const payload of QUERIES) urls.push({ url: `${API}/querybuilder/`, payload });
  return urls;
}
