/**
 * Health checks for orchestrators and load balancers, outside the API prefix: `GET /healthz` says the process
 * answers (liveness: restart it when it does not); `GET /readyz` says whether every source can answer now
 * (readiness: send it traffic or not), 503 with a message naming what is wrong otherwise. A storage without
 * a health check of its own (an archive, a SQLite file) is ready while it is open; a live database once its
 * summaries have been computed ahead (warm-up.ts).
 */
import type { FastifyInstance } from 'fastify';
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

  app.get('/readyz', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (stopping) return reply.code(503).send({ message: 'the server is stopping', sources: [] });
    const states = await Promise.all(
      ctx.backends.map(async (b): Promise<SourceHealth> => {
        const health = await sourceHealth(b, waitMs);
        const warming = warmingMessage(b);
        return health.ready && warming !== undefined ? { ...health, ready: false, message: warming } : health;
      }),
    );
    const sources = ctx.backends.map((b, i) => ({
      name: b.name,
      kind: b.kind,
      ...states[i],
    }));
    const notReady = sources.filter((s) => !s.ready);
    if (notReady.length === 0) return reply.send({ status: 'ready', sources });
    const message = notReady
      .map((s) => `source ${s.name} is not ready: ${s.message ?? 'its storage says so'}`)
      .join('; ');
    return reply.code(503).send({ message, sources });
  });
}
