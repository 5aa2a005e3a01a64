/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * What the OPTIMADE specification (v1.2-1.3, "JSON Response Schema: Common Fields", "Entry Listing Info
 * Endpoints", "Links Endpoint") requires of an answer's shape, written from its text: no validator of the
 * specification's own can run here (optimade-python-tools is on PyPI, out of reach; neither npm nor Debian
 * has one: Debian's liboptimade-filter-perl parses filters only). Each check returns the problems found, so
 * a test can say every one at once.
 */

const TOP_LEVEL = new Set(['data', 'meta', 'errors', 'included', 'links', 'jsonapi']);
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const PROPERTY_TYPES = new Set([
  'string',
  'integer',
  'float',
  'boolean',
  'timestamp',
  'list',
  'dictionary',
  'unknown',
]);

export type Kind = 'info' | 'entry-info' | 'links' | 'listing' | 'entry' | 'error';

export function documentProblems(body: any, kind: Kind): string[] {
  const problems: string[] = [];
  const need = (ok: unknown, what: string) => {
    if (!ok) problems.push(what);
  };
  need(body !== null && typeof body === 'object', 'the document is a JSON object');
  for (const key of Object.keys(body ?? {})) need(TOP_LEVEL.has(key), `no top-level member "${key}"`);
  const meta = body?.meta;
  need(meta && typeof meta === 'object', 'meta is present');
  need(typeof meta?.query?.representation === 'string', 'meta.query.representation is a string');
  need(/^\d+\.\d+\.\d+/.test(meta?.api_version ?? ''), 'meta.api_version is a semantic version');
  need(typeof meta?.more_data_available === 'boolean', 'meta.more_data_available is a boolean');
  need(RFC3339.test(meta?.time_stamp ?? ''), 'meta.time_stamp is an RFC 3339 date-time');
  const provider = meta?.provider;
  need(
    typeof provider?.name === 'string' &&
      typeof provider?.description === 'string' &&
      /^[a-z]([a-z]|[0-9]|_)*$/.test(provider?.prefix ?? ''),
    'meta.provider has a name, a description and a lowercase prefix',
  );
  if (meta?.warnings !== undefined)
    need(
      Array.isArray(meta.warnings) && meta.warnings.every((w: any) => w.type === 'warning' && w.detail),
      'meta.warnings are objects of type "warning" with a detail',
    );

  if (kind === 'error') {
    need(!('data' in body), 'an error document has no data');
    need(Array.isArray(body.errors) && body.errors.length > 0, 'errors is a non-empty list');
    for (const e of body.errors ?? []) {
      need(
        typeof e.status === 'string' && /^[45]\d\d$/.test(e.status),
        'each error has its status as a string',
      );
      need(
        typeof e.title === 'string' && typeof e.detail === 'string',
        'each error has a title and a detail',
      );
    }
    return problems;
  }
  need(!('errors' in body), 'a successful document has no errors');
  need('data' in body, 'data is present');
  const data = body.data;
  if (kind === 'info') {
    need(data?.type === 'info' && data?.id === '/', 'info data is of type "info" with id "/"');
    const a = data?.attributes ?? {};
    need(a.api_version === meta?.api_version, 'info attributes.api_version is the meta api_version');
    need(
      Array.isArray(a.available_api_versions) &&
        a.available_api_versions.every(
          (v: any) => typeof v.url === 'string' && typeof v.version === 'string',
        ),
      'available_api_versions lists url and version',
    );
    need(Array.isArray(a.formats) && a.formats.includes('json'), 'formats include "json"');
    need(Array.isArray(a.entry_types_by_format?.json), 'entry_types_by_format.json is a list');
    need(Array.isArray(a.available_endpoints), 'available_endpoints is a list');
    need(typeof a.is_index === 'boolean', 'is_index is a boolean');
  }
  if (kind === 'entry-info') {
    need(typeof data?.description === 'string', 'the entry info has a description');
    need(Array.isArray(data?.formats) && data.formats.includes('json'), 'its formats include "json"');
    need(Array.isArray(data?.output_fields_by_format?.json), 'output_fields_by_format.json is a list');
    for (const [name, p] of Object.entries<any>(data?.properties ?? {})) {
      need(typeof p.description === 'string' && p.description !== '', `${name} has a description`);
      need(PROPERTY_TYPES.has(p.type), `${name} has one of the specification's types`);
      need(typeof p.sortable === 'boolean', `${name} says whether it is sortable`);
    }
    need(Object.keys(data?.properties ?? {}).length > 0, 'properties are listed');
  }
  if (kind === 'links' || kind === 'listing') {
    need(Array.isArray(data), 'data is a list');
    need(Number.isInteger(meta?.data_returned), 'meta.data_returned is an integer');
    need(body.links !== undefined && 'next' in body.links, 'links.next is given');
    need(
      meta?.more_data_available === (body.links?.next !== null && body.links?.next !== undefined),
      'links.next is a URL exactly when more_data_available',
    );
  }
  const resources = Array.isArray(data) ? data : kind === 'entry' ? [data] : [];
  for (const r of resources) {
    need(typeof r?.id === 'string' && typeof r?.type === 'string', 'each resource has a string id and type');
    need(
      !('id' in (r?.attributes ?? {})) && !('type' in (r?.attributes ?? {})),
      'attributes hold no id or type',
    );
    if (kind === 'links') {
      const a = r?.attributes ?? {};
      need(r.type === 'links', 'a link is of type "links"');
      need(
        typeof a.name === 'string' && typeof a.description === 'string',
        'a link has a name and a description',
      );
      need(a.base_url === null || typeof a.base_url === 'string', 'a link has a base_url');
      need(['child', 'root', 'external', 'providers'].includes(a.link_type), 'a link has a link_type');
    }
    if ((kind === 'listing' || kind === 'entry') && r?.type === 'structures') {
      const a = r?.attributes ?? {};
      need(
        a.last_modified === undefined || RFC3339.test(a.last_modified),
        'last_modified is an RFC 3339 date-time',
      );
      if (a.structure_features !== undefined)
        need(Array.isArray(a.structure_features), 'structure_features is a list');
    }
  }
  return problems;
}
