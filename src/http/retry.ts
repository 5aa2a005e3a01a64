/**
 * A request whose database server was lost while its statements ran, when another server of the source is up
 * (a read replica that stopped, a primary that went away while replicas serve), is run once more from its
 * start, on another server and within the time it had left: reads are idempotent, and an answer never mixes
 * what two servers said.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { markUntaggable, startDeadline } from './request.js';

export function retryOnServerLoss(app: FastifyInstance, ctx: AppContext) {
  // Only PostgreSQL sources have several servers; the others pay nothing for this.
  if (!ctx.catalog.dynamic && !ctx.catalog.list().some((s) => s.kind === 'postgres-profile')) return;
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = async function (request, reply) {
      startDeadline(ctx, request);
      try {
        return await handler.call(this, request, reply);
      } catch (error) {
        if ((error as { retryable?: unknown }).retryable !== true || reply.sent) throw error;
        markUntaggable(request);
        return handler.call(this, request, reply);
      }
    };
  });
}
