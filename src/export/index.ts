/**
 * `.aiida` archives out, at each source's root: `GET /export/?nodes=...&groups=...` (the nodes with their
 * provenance, closed by aiida-core's export rules; `?dry_run=1` says what it would hold) and `GET
 * /export/all.aiida` (everything: a main_0001 archive's own file, else an export of everything kept in the
 * cache). Outside the v4 API's prefix, so that its endpoint listing stays the reference's; a portal serves it
 * at `/<name>/export/` (src/http/mount.ts).
 */
import { createHash } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, ExportBounds } from '../http/context.js';
import { requestSource, selectBackend } from '../http/request.js';
import { requestUrl } from '../http/url.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import type { QueryBudget, StorageBackend } from '../storage/types.js';
import { ExportLane } from './lane.js';
import { readExportRequest } from './params.js';
import { planExport, planSummary, planWhole, type Bounds, type ExportPlan } from './plan.js';
import { sendFile } from './send-file.js';
import { writeArchive } from './writer.js';

export const DEFAULT_MAX_EXPORT_NODES = 100_000;
export const DEFAULT_MAX_EXPORT_BYTES = 4 * 1024 ** 3;

export function registerExport(app: FastifyInstance, ctx: AppContext, options: ExportBounds = {}) {
  const bounds: Bounds = {
    maxNodes: options.maxNodes ?? DEFAULT_MAX_EXPORT_NODES,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_EXPORT_BYTES,
  };
  const lane = new ExportLane(options.running ?? 2, options.waiting ?? 8, options.waitMs);
  const timeLimitMs = options.timeLimitMs ?? 10 * 60_000;
  const budgetOf = (request: FastifyRequest): QueryBudget => ({
    deadline: Date.now() + timeLimitMs,
    heavy: true,
    client: request.ip,
    inThread: false,
  });
  const exportsDir = (backend: StorageBackend) => join(backend.cacheDir ?? defaultCacheDir(), 'exports');
  /** The archive of `plan`, written in the source's exports folder (and kept there as `keepAs`, if given). */
  const archive = async (
    backend: StorageBackend,
    plan: ExportPlan,
    budget: QueryBudget,
    stopped: () => boolean,
    keepAs?: string,
  ) => writeArchive(backend, plan, exportsDir(backend), budget, stopped, keepAs);

  /** Runs `work` in the export lane; the turn ends when the answer is sent or the client is gone. */
  const inLane = async (reply: FastifyReply, work: (stopped: () => boolean) => Promise<FastifyReply>) => {
    const closed = new AbortController();
    reply.raw.once('close', () => closed.abort());
    const leave = await lane.enter(closed.signal);
    let gone = false;
    const end = () => {
      gone = true;
      leave();
    };
    if (closed.signal.aborted) end();
    else closed.signal.addEventListener('abort', end, { once: true });
    try {
      return await work(() => gone || reply.raw.destroyed);
    } catch (error) {
      leave();
      throw error;
    }
  };

  app.get('/export', async (request, reply) => {
    const asked = readExportRequest(requestUrl(request, ctx.origin).rawQuery);
    const backend =
      asked.profile === undefined ? requestSource(ctx, request) : selectBackend(ctx, request, asked.profile);
    return inLane(reply, async (stopped) => {
      const budget = budgetOf(request);
      const plan = await planExport(backend.db, backend.repository, asked, bounds, budget);
      if (asked.dryRun) return reply.header('Cache-Control', 'no-cache').send(planSummary(plan));
      const first = asked.nodes[0] ?? asked.groups[0] ?? 'export';
      reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${backend.name}-${first.slice(0, 8)}.aiida"`)
        .header('Cache-Control', 'no-store');
      // HEAD: the export can be made (its bounds hold); it is not written.
      if (request.method === 'HEAD') return reply.send();
      return reply.send(await archive(backend, plan, budget, stopped));
    });
  });

  app.get('/export/all.aiida', async (request, reply) => {
    const backend = requestSource(ctx, request);
    const filename = `${backend.name}.aiida`;
    if (backend.file !== undefined && backend.exportVersion === 'main_0001')
      return sendFile(request, reply, backend.file, `"${backend.identity ?? 'archive'}"`, filename);
    const version = backend.identity ?? (await backend.dataVersion?.()) ?? 'unversioned';
    const key = createHash('sha256').update(`${backend.name}\0${version}`).digest('base64url').slice(0, 32);
    const kept = join(exportsDir(backend), `all-${key}.aiida`);
    const etag = `"all-${key}"`;
    if (await exists(kept)) return sendFile(request, reply, kept, etag, filename);
    return inLane(reply, async (stopped) => {
      const budget = budgetOf(request);
      const plan = await planWhole(backend.db, backend.repository, bounds, budget);
      const stream = await archive(backend, plan, budget, stopped, kept);
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${filename}"`)
        .header('ETag', etag)
        .send(stream);
    });
  });
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
