/**
 * Which kind of endpoint a request was for: a small fixed set of names, the label of the request metrics
 * and a field of the request log. Raw URLs would give a label value per node and page (unbounded series).
 */

export const ENDPOINT_KINDS = [
  'server',
  'node_list',
  'node_page',
  'node',
  'node_contents',
  'links',
  'tree',
  'download',
  'statistics',
  'list',
  'page',
  'entity',
  'projectable',
  'querybuilder',
  'health',
  'metrics',
  'other',
  'not_found',
] as const;

export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/**
 * The kind of a route, from its pattern (`/api/v4/nodes/:id/links/incoming`); `undefined` for a request no
 * route matched. Each pattern is read once.
 */
export function endpointKinds(prefix: string): (route: string | undefined) => EndpointKind {
  const known = new Map<string, EndpointKind>();
  return (route) => {
    if (route === undefined) return 'not_found';
    let kind = known.get(route);
    if (kind === undefined) known.set(route, (kind = kindOf(prefix, route)));
    return kind;
  };
}

function kindOf(prefix: string, route: string): EndpointKind {
  if (route === '/healthz' || route === '/readyz') return 'health';
  if (route === '/metrics') return 'metrics';
  if (!route.startsWith(prefix)) return 'other';
  const path = route.slice(prefix.length).replace(/\/$/, '');
  if (path === '' || path.startsWith('/server')) return 'server';
  if (path === '/querybuilder') return 'querybuilder';
  const [, collection = '', ...rest] = path.split('/');
  const tail = rest.join('/');
  if (tail === 'projectable_properties') return 'projectable';
  const nodes = collection === 'nodes';
  if (nodes && ['statistics', 'full_types', 'full_types_count', 'download_formats'].includes(tail))
    return 'statistics';
  if (tail === '') return nodes ? 'node_list' : 'list';
  if (tail === 'page' || tail.startsWith('page/')) return nodes ? 'node_page' : 'page';
  if (tail === ':id') return nodes ? 'node' : 'entity';
  if (tail === ':id/download' || tail === ':id/repo/contents') return 'download';
  if (tail === ':id/links/tree') return 'tree';
  if (tail.startsWith(':id/links/')) return 'links';
  if (tail.startsWith(':id/')) return 'node_contents';
  return 'other';
}
