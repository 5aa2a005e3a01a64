/** Endpoints about one node: links, contents, repository files, process reports and calcjob files. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTIONS } from '../../rest/collections.js';
import { inputError } from '../../rest/errors.js';
import { isUuidPrefix } from '../../rest/identifiers.js';
import { listCollection } from '../../rest/list.js';
import {
  calcjobFiles,
  filenameParam,
  loadNode,
  nodeComments,
  processReport,
  repoFile,
  repoList,
  selectKeys,
  type NodeRecord,
} from '../../rest/node-contents.js';
import { ioTree } from '../../rest/tree.js';
import { derivedOf, exportNode } from '../../rest/download.js';
import type { AppContext } from '../context.js';
import { envelope, listHeaders } from '../envelope.js';
import { keptGets } from '../kept-answers.js';
import { shareCompressed } from '../shared-bytes.js';
import { toJson } from '../../util/exact-json.js';
import { logFailure } from '../failures.js';
import { parseRequest, requestTimeLimitMs, type ParsedRequest } from '../request.js';

type Params = { id: string; page?: string };
type Handler = (req: ParsedRequest, node: NodeRecord, params: Params) => Promise<unknown>;

/** A node in the path must be a UUID (prefix); anything else in that position is an unknown URL. */
function checkId(raw: string) {
  if (!isUuidPrefix(raw)) throw inputError('The requested URL is not found on the server.');
}

/** One-node endpoints answer the envelope with X-Total-Count 1, as the reference does. */
function nodeEndpoint(ctx: AppContext, resource: string, handler: Handler) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const parsed = parseRequest(ctx, request);
    checkId(request.params.id);
    if (Object.keys(parsed.qs.filters).length > 0) {
      throw inputError('selecting a specific id does not allow to specify filters');
    }
    const node = await loadNode(parsed.backend, request.params.id);
    const data = await handler(parsed, node, request.params);
    return reply.headers(listHeaders(1)).send(envelope(parsed.url, resource, data, request.params.id));
  };
}

export function registerNodeItems(app: FastifyInstance, ctx: AppContext) {
  const nodes = `${ctx.prefix}/nodes/:id`;
  for (const direction of ['incoming', 'outgoing'] as const) {
    const handler =
      (paging: 'none' | 'first' | 'param') =>
      async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
        const { url, qs, backend } = parseRequest(ctx, request);
        checkId(request.params.id);
        const page = paging === 'param' ? Number(request.params.page) : paging === 'first' ? 1 : undefined;
        const result = await listCollection(
          backend,
          { spec: COLLECTIONS.nodes, id: request.params.id, page, qs, links: direction },
          ctx,
        );
        return reply
          .headers(listHeaders(result.total, url.rawUrl, result.pages))
          .send(envelope(url, 'nodes', result.data, request.params.id));
      };
    app.get(`${nodes}/links/${direction}`, handler('none'));
    app.get(`${nodes}/links/${direction}/page`, handler('first'));
    app.get(`${nodes}/links/${direction}/page/:page(^\\d+$)`, handler('param'));
  }

  app.get(`${nodes}/download`, async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const deadline = Date.now() + requestTimeLimitMs(ctx, request);
    const { url, qs, backend } = parseRequest(ctx, request);
    checkId(request.params.id);
    const node = await loadNode(backend, request.params.id);
    const result = await exportNode(backend, node, qs.downloadFormat, deadline);
    if ([false, 'false', 'False'].includes(qs.download as string | boolean)) {
      // The Materials Cloud pages read the export from the JSON envelope.
      const data = {
        download: { data: result.content.toString('utf8'), filename: result.filename, status: 200 },
      };
      return reply.headers(listHeaders(1)).send(envelope(url, 'nodes', data, request.params.id));
    }
    return reply
      .headers({
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${result.filename.replaceAll('"', '')}"`,
      })
      .send(result.content);
  });

  app.get(`${nodes}/links/tree`, async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const { url, qs, backend } = parseRequest(ctx, request);
    checkId(request.params.id);
    const answer = async () =>
      envelope(
        url,
        'nodes',
        await ioTree(backend, request.params.id, qs.inLimit, qs.outLimit, ctx.maxRows),
        request.params.id,
      );
    reply.headers(listHeaders(0));
    if (backend.identity === undefined) return reply.send(await answer());
    // An archive's tree never changes: a costly one (a hub's) is kept as the bytes sent, under all that its
    // envelope is made of and the bound it was read within.
    const key = JSON.stringify([
      backend.identity,
      ctx.maxRows,
      url.method,
      url.path,
      url.queryString,
      url.url,
      url.urlRoot,
    ]);
    const body = await keptGets.answer(key, async () => Buffer.from(toJson(await answer())));
    shareCompressed(reply, `tree\u0000${key}`);
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.get(
    `${nodes}/contents/attributes`,
    nodeEndpoint(ctx, 'nodes', async ({ qs }, node) => ({
      attributes: selectKeys(node.attributes, qs.attributesFilter),
    })),
  );
  app.get(
    `${nodes}/contents/extras`,
    nodeEndpoint(ctx, 'nodes', async ({ qs }, node) => ({
      extras: selectKeys(node.extras, qs.extrasFilter),
    })),
  );
  app.get(
    `${nodes}/contents/derived_properties`,
    nodeEndpoint(ctx, 'nodes', async ({ backend }, node) => ({
      derived_properties: await derivedOf(backend, node),
    })),
  );
  app.get(
    `${nodes}/contents/comments`,
    nodeEndpoint(ctx, 'nodes', async ({ backend }, node) => ({
      comments: await nodeComments(backend, node),
    })),
  );
  app.get(
    `${nodes}/repo/list`,
    nodeEndpoint(ctx, 'nodes', async ({ qs }, node) => ({
      repo_list: repoList(node, filenameParam(qs.filename, false)),
    })),
  );
  app.get(
    `${nodes}/repo/contents`,
    async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
      const { qs, backend } = parseRequest(ctx, request);
      checkId(request.params.id);
      const node = await loadNode(backend, request.params.id);
      const filename = filenameParam(qs.filename, true);
      const file = await repoFile(backend, node, filename);
      reply.headers({
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${filename.replaceAll('"', '')}"`,
        'Content-Length': String(file.size),
      });
      // The reference answers an empty file as a one-record answer: clients read its X-Total-Count.
      if (file.size === 0) reply.headers(listHeaders(1));
      const stream = await file.stream();
      // Past the headers, a damaged stored object can only cut the answer short; it is logged.
      stream.on('error', (error) => logFailure(request, undefined, error));
      return reply.send(stream);
    },
  );

  app.get(
    `${ctx.prefix}/processes/:id/report`,
    nodeEndpoint(ctx, 'processes', async ({ backend }, node) => processReport(backend, node)),
  );
  for (const which of ['input', 'output'] as const) {
    app.get(
      `${ctx.prefix}/calcjobs/:id/${which}_files`,
      nodeEndpoint(ctx, 'calcjobs', async ({ backend, qs }, node) =>
        calcjobFiles(backend, node, which, filenameParam(qs.filename, false)),
      ),
    );
  }
}
