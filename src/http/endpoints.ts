/** The endpoint table of the v4 API: what the root listing shows and what the router registers. */

export type EndpointGroup =
  'calcjobs' | 'computers' | 'groups' | 'nodes' | 'processes' | 'querybuilder' | 'server' | 'users';

export interface Endpoint {
  group: EndpointGroup;
  /** Path below the prefix, in the reference's Flask notation (`<id>`, `<int:page>`), with a trailing slash. */
  pattern: string;
  post?: boolean;
}

const collection = (group: EndpointGroup, withId = true): Endpoint[] => [
  { group, pattern: `/${group}/` },
  ...(withId ? [{ group, pattern: `/${group}/<id>/` }] : []),
  { group, pattern: `/${group}/page/` },
  { group, pattern: `/${group}/page/<int:page>/` },
  { group, pattern: `/${group}/projectable_properties/` },
];

const nodeEndpoints: Endpoint[] = [
  ...collection('nodes'),
  ...['attributes', 'comments', 'derived_properties', 'extras'].map((c) => `/nodes/<id>/contents/${c}/`),
  '/nodes/<id>/download/',
  ...['incoming', 'outgoing'].flatMap((d) => [
    `/nodes/<id>/links/${d}/`,
    `/nodes/<id>/links/${d}/page/`,
    `/nodes/<id>/links/${d}/page/<int:page>/`,
  ]),
  '/nodes/<id>/links/tree/',
  '/nodes/<id>/repo/contents/',
  '/nodes/<id>/repo/list/',
  '/nodes/download_formats/',
  '/nodes/full_types/',
  '/nodes/full_types_count/',
  '/nodes/statistics/',
].map((e) => (typeof e === 'string' ? { group: 'nodes' as const, pattern: e } : e));

export function endpointTable(posting: boolean): Endpoint[] {
  return [
    { group: 'server', pattern: '/' },
    { group: 'server', pattern: '/server/' },
    { group: 'server', pattern: '/server/endpoints/' },
    { group: 'calcjobs', pattern: '/calcjobs/<id>/input_files/' },
    { group: 'calcjobs', pattern: '/calcjobs/<id>/output_files/' },
    ...collection('computers'),
    ...collection('groups'),
    ...nodeEndpoints,
    { group: 'processes', pattern: '/processes/<id>/report/' },
    { group: 'processes', pattern: '/processes/projectable_properties/' },
    ...(posting ? [{ group: 'querybuilder' as const, pattern: '/querybuilder/', post: true }] : []),
    ...collection('users'),
  ];
}

export function methodsOf(endpoint: Endpoint): string[] {
  return endpoint.post ? ['GET', 'POST', 'HEAD', 'OPTIONS'] : ['GET', 'HEAD', 'OPTIONS'];
}

/** The root listing: `<group padded to 15> <methods padded to 20> <path>`, sorted, as Flask's route list prints. */
export function listEndpoints(prefix: string, posting: boolean): string[] {
  return endpointTable(posting)
    .map((e) => `${e.group.padEnd(15)} ${methodsOf(e).join(',').padEnd(20)} ${prefix}${e.pattern}`)
    .sort();
}

/** The Fastify route path for a pattern: `<id>` -> `:id`, `<int:page>` -> a digits-only `:page`. */
export function routePath(prefix: string, pattern: string): string {
  return prefix + pattern.replace('<id>', ':id').replace('<int:page>', ':page(^\\d+$)').replace(/\/$/, '');
}

/** First path segments of the server's own routes, which are not the API's even where the API is at the root. */
const OWN_ROUTES = /^\/(healthz|readyz|metrics|sources|assets|docs|optimade|export)(\/|$)/;

/**
 * Whether a route (its pattern) is one of the v4 API's: under the prefix, or, with the API at the root (an empty
 * prefix), any route that is not one of the server's own.
 */
export function isApiRoute(prefix: string, route: string | undefined): boolean {
  if (route === undefined) return false;
  if (prefix !== '') return route === prefix || route.startsWith(`${prefix}/`);
  return !OWN_ROUTES.test(route);
}
