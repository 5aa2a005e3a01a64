/**
 * Health checks for orchestrators and load balancers, outside the API prefix: `GET /healthz` says the process
 * answers (liveness: restart it when it does not); `GET /readyz` says whether every open source can answer now
 * (readiness: send it traffic or not), 503 with a message naming what is wrong otherwise; sources that are not
 * open are opened by their first request, and `GET /readyz?source=NAME` checks one, opening it. A storage without
 * a health check of its own (an archive, a SQLite file) is ready while it is open; a live database once its
 * summaries have been computed ahead (warm-up.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../http/context.js';
import type { SourceHealth, StorageBackend } from '../storage/types.js';
import { within } from '../util/within.js';
import { warmingMessage } from './warm-up.js';

/** /readyz waits this long for a storage at most: a database that hangs makes the server not ready, not hung. */
export const READY_WAIT_MS = 2_000;

/** A storage's health, within `ms`: one that does not answer in time, or fails to, is not ready. */
export async function sourceHealth(backend: StorageBackend, ms: number): Promise<SourceHealth> {
  if (backend.health === undefined) return { ready: true };
  const outcome = await within(backend.health(), ms);
  if (outcome === undefined) {
    return { ready: false, message: `its health check did not answer within ${ms / 1000} s` };
  }
  if ('error' in outcome) {
    return { ready: false, message: `its health check failed: ${(outcome.error as Error).message}` };
  }
  return outcome.value;
}

export function registerHealth(app: FastifyInstance, ctx: AppContext, waitMs = READY_WAIT_MS) {
  let stopping = false;
  app.addHook('preClose', (done) => {
    stopping = true;
    done();
  });

  app.get('/healthz', async (_request, reply) =>
    reply.header('Cache-Control', 'no-store').send({ status: 'ok' }),
  );

  app.get('/readyz', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (stopping) return reply.code(503).send({ message: 'the server is stopping', sources: [] });
    const raw = request.raw.url ?? '';
    const asked = new URLSearchParams(raw.includes('?') ? raw.slice(raw.indexOf('?') + 1) : '').get('source');
    if (asked !== null) return readyOne(ctx, asked, waitMs, reply);
    // Ready once the sources are known: a closed source is opened by its first request, not checked here.
    const backends = ctx.backends;
    const states = await Promise.all(backends.map((b) => readiness(b, waitMs)));
    const sources = backends.map((b, i) => ({ name: b.name, kind: b.kind, ...states[i] }));
    const notReady = sources.filter((s) => !s.ready);
    // A portal's sources come and go: how many are known and open.
    const known = ctx.catalog.dynamic
      ? { catalog: { total: ctx.catalog.size, open: ctx.catalog.openSources } }
      : {};
    if (notReady.length === 0) return reply.send({ status: 'ready', sources, ...known });
    const message = notReady
      .map((s) => `source ${s.name} is not ready: ${s.message ?? 'its storage says so'}`)
      .join('; ');
    return reply.code(503).send({ message, sources, ...known });
  });
}

async function readiness(backend: StorageBackend, waitMs: number): Promise<SourceHealth> {
  const health = await sourceHealth(backend, waitMs);
  const warming = warmingMessage(backend);
  return health.ready && warming !== undefined ? { ...health, ready: false, message: warming } : health;
}

/** `/readyz?source=NAME`: that one source, opened if it is closed (a check of whether it can answer at all). */
async function readyOne(ctx: AppContext, name: string, waitMs: number, reply: FastifyReply) {
  if (!ctx.catalog.has(name)) {
    return reply.code(404).send({
      message: `no source is named "${name}"; GET /sources/ lists the sources served`,
      sources: [],
    });
  }
  let lease;
  try {
    lease = await ctx.catalog.acquire(name);
  } catch (error) {
    const message = (error as Error).message;
    return reply.code(503).send({ message, sources: [{ name, ready: false, message }] });
  }
  if (lease === undefined)
    return reply.code(404).send({ message: `the source "${name}" was removed`, sources: [] });
  try {
    const state = { name, kind: lease.backend.kind, ...(await readiness(lease.backend, waitMs)) };
    if (state.ready) return reply.send({ status: 'ready', sources: [state] });
    return reply.code(503).send({
      message: `source ${name} is not ready: ${state.message ?? 'its storage says so'}`,
      sources: [state],
    });
  } finally {
    lease.release();
  }
}
