/**
 * One view of the metrics across the serving processes (`--processes`). They share the port, so any of them
 * may be the one a scrape reaches; that one asks the supervisor, which collects every serving process's
 * metrics over the IPC channel and sums them (prom-client's AggregatorRegistry.aggregate: counters and
 * histograms add up, gauges say how they combine), and the answer goes back to the one asked.
 *
 * The supervisor loads prom-client only when first asked: a server without --metrics never does.
 */
import cluster, { type Worker } from 'node:cluster';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

export type Metrics = MetricObjectWithValues<MetricValue<string>>[];

export type MetricsMessage =
  /** A serving process can be collected from (it has registered its metrics). */
  | { quarryMetrics: 'ready' }
  /** A serving process was scraped: it asks for everyone's metrics. */
  | { quarryMetrics: 'ask'; id: number }
  /** The supervisor collects one process's metrics... */
  | { quarryMetrics: 'collect'; id: number }
  /** ...which it gives as prom-client's JSON. */
  | { quarryMetrics: 'collected'; id: number; metrics: Metrics }
  /** The sum, in Prometheus's text format, to the process that asked. */
  | { quarryMetrics: 'answer'; id: number; text?: string; error?: string };

export function isMetricsMessage(message: unknown): message is MetricsMessage {
  return typeof (message as { quarryMetrics?: unknown } | undefined)?.quarryMetrics === 'string';
}

/** How long the supervisor waits for the processes' metrics; one that is slower is left out of that answer. */
export const COLLECT_MS = 2_000;

const collectable = new WeakSet<Worker>();
const collecting = new Map<number, { got: Metrics[]; waiting: Set<Worker>; finish: () => void }>();
let nextCollection = 0;

/** The supervisor's side: called with each metrics message a serving process sends. */
export function onMetricsMessage(worker: Worker, message: MetricsMessage): void {
  switch (message.quarryMetrics) {
    case 'ready':
      collectable.add(worker);
      return;
    case 'ask':
      void answer(worker, message.id);
      return;
    case 'collected': {
      const collection = collecting.get(message.id);
      if (collection === undefined) return;
      collection.got.push(message.metrics);
      collection.waiting.delete(worker);
      if (collection.waiting.size === 0) collection.finish();
      return;
    }
  }
}

async function answer(asker: Worker, askedId: number) {
  const send = (reply: MetricsMessage) => {
    if (asker.isConnected()) asker.send(reply);
  };
  try {
    const { AggregatorRegistry } = await import('prom-client');
    const all = await collectAll();
    send({ quarryMetrics: 'answer', id: askedId, text: await AggregatorRegistry.aggregate(all).metrics() });
  } catch (error) {
    send({ quarryMetrics: 'answer', id: askedId, error: (error as Error).message });
  }
}

function collectAll(): Promise<Metrics[]> {
  const workers = (Object.values(cluster.workers ?? {}) as Worker[]).filter(
    (w) => collectable.has(w) && w.isConnected() && !w.isDead(),
  );
  const id = nextCollection++;
  return new Promise((resolve) => {
    const got: Metrics[] = [];
    const finish = () => {
      clearTimeout(timer);
      collecting.delete(id);
      resolve(got);
    };
    const timer = setTimeout(finish, COLLECT_MS);
    collecting.set(id, { got, waiting: new Set(workers), finish });
    if (workers.length === 0) finish();
    for (const worker of workers) worker.send({ quarryMetrics: 'collect', id } satisfies MetricsMessage);
  });
}
