/**
 * `GET /metrics` in Prometheus's text format (with `--metrics`), outside the API prefix. Each serving process
 * counts its own requests in one onResponse hook; with several processes the answer sums them all, whichever
 * process is asked (cluster-metrics.ts). Off, nothing is counted and prom-client is never loaded; the URL
 * answers 404 with a message that says how to turn it on.
 */
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../http/context.js';
import { requestSourceName } from '../http/request.js';
import { isMetricsMessage, type MetricsMessage } from './cluster-metrics.js';
import { endpointKinds } from './endpoint-kind.js';
import type { MetricSet } from './metric-set.js';

/** How long a scrape waits for the supervisor's sum before answering 503. */
const ASK_MS = 5_000;

let current: MetricSet | undefined;

/**
 * Count a conditional request (If-None-Match): `hit` when it was answered 304. For the ETag code; costs nothing
 * without --metrics. Every 304 is also counted among the requests by status.
 */
export function countConditional(hit: boolean): void {
  current?.conditional(hit);
}

export async function registerMetrics(app: FastifyInstance, ctx: AppContext, enabled: boolean) {
  if (!enabled) {
    app.get('/metrics', async (_request, reply) =>
      reply
        .code(404)
        .send({ message: 'metrics are off on this server; start it with --metrics to answer here' }),
    );
    return;
  }
  const { metricSet } = await import('./metric-set.js');
  const set = metricSet(
    () => ctx.backends,
    () => ({ known: ctx.catalog.size, open: ctx.catalog.openSources }),
  );
  current = set;
  const kindOf = endpointKinds(ctx.prefix);
  // A callback hook: no promise per request. routeOptions.url is the route's pattern (one string per route).
  app.addHook('onResponse', (request, reply, done) => {
    set.request(kindOf(request.routeOptions.url), reply.statusCode, reply.elapsedTime);
    const source = requestSourceName(ctx, request);
    if (source !== undefined) set.sourceRequest(source);
    done();
  });
  const ask = cluster.isWorker && process.send ? clusterAsker(set) : undefined;
  app.addHook('onClose', (_app, done) => {
    set.close();
    ask?.close();
    if (current === set) current = undefined;
    done();
  });
  app.get('/metrics', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store').type(set.registry.contentType);
    if (ask === undefined) return reply.send(await set.registry.metrics());
    return reply.send(await ask.all());
  });
}

/**
 * A serving process of a supervisor: it gives its metrics when the supervisor collects them, and asks the
 * supervisor for everyone's when it is scraped.
 */
function clusterAsker(set: MetricSet) {
  const send = (message: MetricsMessage) => process.send?.(message);
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const listener = (message: unknown) => {
    if (!isMetricsMessage(message)) return;
    if (message.quarryMetrics === 'collect') {
      void set.registry
        .getMetricsAsJSON()
        .then((metrics) => send({ quarryMetrics: 'collected', id: message.id, metrics }));
    } else if (message.quarryMetrics === 'answer') {
      const asked = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.text !== undefined) asked?.resolve(message.text);
      else asked?.reject(new Error(message.error ?? 'no answer'));
    }
  };
  process.on('message', listener);
  send({ quarryMetrics: 'ready' });
  return {
    all(): Promise<string> {
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(unavailable('the serving processes did not give their metrics in time'));
        }, ASK_MS);
        waiting.set(id, {
          resolve: (text) => (clearTimeout(timer), resolve(text)),
          reject: (error) => (clearTimeout(timer), reject(unavailable(error.message))),
        });
        send({ quarryMetrics: 'ask', id });
      });
    },
    close() {
      process.off('message', listener);
    },
  };
}

function unavailable(message: string): Error {
  return Object.assign(new Error(`metrics unavailable: ${message}`), { status: 503 });
}
