/** `/`, `/server/` and `/server/endpoints/`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { listEndpoints } from '../endpoints.js';
import { infoEnvelope, listHeaders } from '../envelope.js';
import { requestSource } from '../request.js';
import { requestUrl } from '../url.js';

/** The API version the reference reports: 4.1.0. */
const API_VERSION = ['4', '1', '0'] as const;

export function registerServer(app: FastifyInstance, ctx: AppContext) {
  const endpoints = async (request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(listHeaders(1)).send(
      infoEnvelope(requestUrl(request, ctx.origin), {
        available_endpoints: listEndpoints(ctx.prefix, ctx.posting),
      }),
    );
  app.get(ctx.prefix === '' ? '/' : ctx.prefix, endpoints);
  app.get(`${ctx.prefix}/server/endpoints`, endpoints);
  app.get(`${ctx.prefix}/server`, async (request, reply) => {
    const backend = requestSource(ctx, request);
    return reply.headers(listHeaders(1)).send(
      infoEnvelope(requestUrl(request, ctx.origin), {
        API_major_version: API_VERSION[0],
        API_minor_version: API_VERSION[1],
        API_prefix: ctx.prefix,
        API_revision_version: API_VERSION[2],
        AiiDA_version: backend.aiidaVersion,
        // An AiiDA 1.x archive, converted by Quarry: the version of the format it was written in.
        ...(backend.exportVersion !== undefined && /^0\./.test(backend.exportVersion)
          ? { archive_export_version: backend.exportVersion }
          : {}),
      }),
    );
  });
}
