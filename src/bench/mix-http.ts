/**
 * Request kinds that measure HTTP caching and compression (src/ops/) beside the kinds they are variants of:
 * the same requests revalidated (If-None-Match with the tag of their 200, answered 304), and the same requests
 * with Accept-Encoding (br, gzip). They name a fixed Host, so that the tags fetched here in-process hold for the
 * load generator's requests.
 */
import type { FastifyInstance } from 'fastify';
import type { RequestKind } from './mix.js';

const HOST = 'quarry.bench';

/** The kinds of the mix measured again as 304 revalidations, and with each coding. */
const REVALIDATED = ['node page of 20 by -ctime', 'single node', 'statistics'];
const COMPRESSED: [string, string][] = [
  ['node page of 20 by -ctime', 'br'],
  ['node page of 20 by -ctime', 'gzip'],
  ['single node', 'br'],
  ['links tree', 'br'],
  ['bands download as agr', 'br'],
  ['bands download as agr', 'gzip'],
];

/** An export of some 24 kB (the mix has no download that big uncompressed), for the codings to be measured on. */
async function bandsDownloads(app: FastifyInstance): Promise<RequestKind> {
  const list = await app.inject(
    '/api/v4/nodes/?node_type="data.core.array.bands.BandsData."&orderby=id&limit=16',
  );
  const uuids = (list.json() as { data: { nodes: { uuid: string }[] } }).data.nodes.map((n) => n.uuid);
  if (uuids.length === 0) throw new Error('the benchmark data has no BandsData node');
  const paths = uuids.map((u) => `/api/v4/nodes/${u}/download/?download_format=agr`);
  return { name: 'bands download as agr', method: 'GET', paths };
}

export async function httpCachingKinds(app: FastifyInstance, base: RequestKind[]): Promise<RequestKind[]> {
  const mix = [...base, await bandsDownloads(app)];
  const named = (name: string) => {
    const kind = mix.find((k) => k.name === name);
    if (!kind) throw new Error(`the mix has no kind ${name}`);
    return kind;
  };
  const bands = named('bands download as agr');
  // Plots drawn at 300 dpi (kept once drawn: an archive's never change), on a few nodes: the kind the
  // benchmark drives beside single nodes (crowd.ts), as when visitors download figures.
  const png: RequestKind = {
    name: 'bands download as mpl_png',
    method: 'GET',
    paths: bands.paths.slice(0, 4).map((p) => p.replace('=agr', '=mpl_png')),
  };
  const out: RequestKind[] = [bands, png];
  for (const name of REVALIDATED) {
    const kind = named(name);
    const headers = [];
    for (const path of kind.paths) {
      const r = await app.inject({ method: 'GET', url: path, headers: { host: HOST } });
      const tag = r.headers.etag;
      if (r.statusCode !== 200 || typeof tag !== 'string') throw new Error(`${path}: no ETag on its answer`);
      headers.push({ host: HOST, 'if-none-match': tag });
    }
    out.push({ ...kind, name: `${name}, 304 revalidation`, headers, expectStatus: 304 });
  }
  for (const [name, coding] of COMPRESSED) {
    const kind = named(name);
    out.push({
      ...kind,
      name: `${name}, ${coding}`,
      headers: kind.paths.map(() => ({ 'accept-encoding': coding })),
    });
  }
  return out;
}
