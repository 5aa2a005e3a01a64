/** Node-wide summaries: statistics, the full-type namespace (with counts) and the download formats. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allDownloadFormats, formatsOf } from '../../domain/download-formats.js';
import type { QsFilter } from '../../querystring/types.js';
import { badRequest, inputError, notImplemented } from '../../rest/errors.js';
import { namespaceJson, statisticsJson, typeCountsOf } from '../../rest/node-summaries.js';
import type { AppContext } from '../context.js';
import { envelope, envelopeJson, listHeaders } from '../envelope.js';
import { markUntaggable, parseRequest } from '../request.js';
import type { RequestUrl } from '../url.js';

/** `?user=<pk>` is the only filter these endpoints take. */
function userFilter(filters: Record<string, QsFilter>): number | undefined {
  const keys = Object.keys(filters);
  if (keys.length === 0) return undefined;
  const value = filters.user?.['=='];
  if (keys.length > 1 || typeof value !== 'number' || !Number.isInteger(value)) {
    throw badRequest('this endpoint takes one filter, user=<pk> (for example ?user=2)');
  }
  return value;
}

export function registerNodeStats(app: FastifyInstance, ctx: AppContext) {
  const base = `${ctx.prefix}/nodes`;
  /** The answer of a summary, which carries no ETag when it is older than the data its tag would name. */
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    url: RequestUrl,
    json: string,
    current: boolean,
  ) => {
    if (!current) markUntaggable(request);
    const { type, body } = envelopeJson(url, 'nodes', json, null);
    return reply.headers(listHeaders(0)).type(type).send(body);
  };
  app.get(`${base}/statistics`, async (request, reply) => {
    const { url, qs, backend } = parseRequest(ctx, request);
    const { value, current } = await statisticsJson(backend, userFilter(qs.filters));
    return answer(request, reply, url, value, current);
  });
  for (const [path, counted] of [
    ['full_types', false],
    ['full_types_count', true],
  ] as const) {
    app.get(`${base}/${path}`, async (request, reply) => {
      const { url, qs, backend } = parseRequest(ctx, request);
      // One pass over the types serves both endpoints.
      const { value, current } = await typeCountsOf(backend, counted ? userFilter(qs.filters) : undefined);
      return answer(request, reply, url, namespaceJson(value, counted), current);
    });
  }
  app.get(`${base}/download_formats`, async (request, reply) => {
    const { url, qs } = parseRequest(ctx, request);
    const data = downloadFormats(qs.fullType);
    return reply.headers(listHeaders(0)).send(envelope(url, 'nodes', data, null));
  });
}

function downloadFormats(fullType: unknown): Record<string, string[]> {
  if (fullType === undefined || fullType === '') return allDownloadFormats();
  const text = String(fullType);
  const [nodeType, processType, extra] = text.split('|');
  if (processType === undefined || extra !== undefined) throw inputError(`The full type ${text} is invalid.`);
  if (processType !== '') {
    // Process classes export nothing; only entry points can be loaded at all.
    if (processType.includes(':')) return {};
    throw notImplemented('The download formats for this node type are not available.');
  }
  const formats = formatsOf(nodeType ?? '');
  if (formats === undefined)
    throw notImplemented('The download formats for this node type are not available.');
  return { [text]: formats };
}
