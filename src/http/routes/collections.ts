/** users, computers, groups, nodes: list, page, single record and projectable properties. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTIONS, type CollectionName } from '../../rest/collections.js';
import { inputError } from '../../rest/errors.js';
import { isUuidPrefix } from '../../rest/identifiers.js';
import { listCollection } from '../../rest/list.js';
import { PROJECTABLE_PROPERTIES } from '../../rest/projectable.js';
import type { AppContext } from '../context.js';
import { envelope, listHeaders } from '../envelope.js';
import { parseRequest } from '../request.js';

type Params = { id?: string; page?: string };

export function registerCollections(app: FastifyInstance, ctx: AppContext) {
  for (const name of Object.keys(COLLECTIONS) as CollectionName[]) {
    const base = `${ctx.prefix}/${name}`;
    app.get(base, listHandler(ctx, name, 'none'));
    app.get(`${base}/page`, listHandler(ctx, name, 'first'));
    app.get(`${base}/page/:page(^\\d+$)`, listHandler(ctx, name, 'param'));
    app.get(`${base}/:id`, listHandler(ctx, name, 'none'));
    app.get(`${base}/projectable_properties`, projectableHandler(ctx, name));
  }
  app.get(`${ctx.prefix}/processes/projectable_properties`, projectableHandler(ctx, 'processes'));
}

function listHandler(ctx: AppContext, name: CollectionName, paging: 'none' | 'first' | 'param') {
  const spec = COLLECTIONS[name];
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const { url, qs, backend } = parseRequest(ctx, request);
    const { id: rawId, page: rawPage } = request.params;
    const page = paging === 'param' ? Number(rawPage) : paging === 'first' ? 1 : undefined;
    let id: string | number | undefined;
    if (rawId !== undefined) {
      // The reference reads a segment that is no pk (users) or UUID prefix (others) as an unknown URL.
      if (spec.idKind === 'pk' ? !/^\d+$/.test(rawId) : !isUuidPrefix(rawId)) {
        throw inputError('The requested URL is not found on the server.');
      }
      id = spec.idKind === 'pk' ? Number(rawId) : rawId;
    }
    const result = await listCollection(backend, { spec, id, page, qs }, ctx);
    const headers = listHeaders(result.total, url.rawUrl, result.pages);
    return reply.headers(headers).send(envelope(url, name, result.data, id));
  };
}

function projectableHandler(ctx: AppContext, name: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { url } = parseRequest(ctx, request);
    if (url.rawQuery !== '') {
      throw inputError('projectable_properties requests do not allow specifying a query string');
    }
    const properties = PROJECTABLE_PROPERTIES[name];
    return reply.headers(listHeaders(1)).send(envelope(url, name, properties, null));
  };
}
