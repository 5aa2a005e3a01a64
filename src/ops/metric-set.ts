/**
 * The metrics one serving process keeps, in prom-client's registry: requests by endpoint kind and status,
 * their latency, the storages' query time and time-outs, connections and queues, caches, archive
 * extraction, and the process itself (memory, CPU, event-loop delay, garbage collection). What only a
 * storage knows (pools, readiness) is read when scraped, not kept.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { planCacheUse } from '../query/index.js';
import { remoteBlocks } from '../storage/archive/byte-cache.js';
import { extractionStats } from '../storage/archive/extract.js';
import { remoteRequests } from '../storage/archive/http-reader.js';
import { fileBudget } from '../storage/file-budget.js';
import { observeQueries } from '../storage/observe.js';
import { inThreadUse } from '../storage/sqlite-pool.js';
import {
  QueryTimeoutError,
  type ServerState,
  type SourceHealth,
  type StorageBackend,
} from '../storage/types.js';
import type { EndpointKind } from './endpoint-kind.js';
import { keptGetUse } from './kept-gets.js';
import { sourceHealth } from './health.js';
import { Histogram, StatusCounter, register, type HistogramSeries } from './tally.js';

/** Seconds; from a point lookup (0.1 ms) to the default query time limit (30 s). */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A scrape waits this long for a storage's health at most: a hung database must not hang the scrape. */
const HEALTH_MS = 1_000;

interface RequestSeries {
  byStatus: number[];
  duration: HistogramSeries;
}

export interface MetricSet {
  registry: Registry;
  /** One answered request (its duration in milliseconds). */
  request(kind: EndpointKind, status: number, ms: number): void;
  /** One answered request that read a source (by name), for the per-source counts. */
  sourceRequest(name: string): void;
  /** A conditional request: answered 304 (`hit`) or in full. */
  conditional(hit: boolean): void;
  /** Stop watching the storages' queries (the app closes). */
  close(): void;
}

/** `openNow`: the storages open at the time of a scrape (sources open and close while serving). */
/** Sources named in the per-source request counts; the others are counted together. */
const SOURCE_LABELS = 100;

export function metricSet(
  openNow: () => readonly StorageBackend[],
  catalogState?: () => { known: number; open: number },
): MetricSet {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new StatusCounter<EndpointKind>(
    'quarry_http_requests_total',
    'HTTP requests answered, by endpoint kind and status',
    'kind',
  );
  const durations = new Histogram<EndpointKind>(
    'quarry_http_request_duration_seconds',
    'Time from a request received to its answer sent, by endpoint kind',
    BUCKETS,
    'kind',
  );
  const queryTime = new Histogram<never>(
    'quarry_query_duration_seconds',
    'Time of each statement a request ran, waiting for a connection included',
    BUCKETS,
  );
  for (const tally of [requests, durations, queryTime]) register(registry, tally);
  const timeouts = new Counter({
    name: 'quarry_query_timeouts_total',
    help: "Statements stopped at the request's query time limit (--query-timeout)",
    registers: [registry],
  });
  const conditional = new Counter({
    name: 'quarry_http_conditional_requests_total',
    help: 'Conditional requests (If-None-Match), by whether they were answered 304 Not Modified',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  conditional.inc({ result: 'not_modified' }, 0);
  conditional.inc({ result: 'modified' }, 0);

  // Kept counts of other layers, read when scraped (counters set to the kept total).
  new Counter({
    name: 'quarry_statements_in_thread_total',
    help:
      'SQLite statements run in the serving thread before a query process: answered there, or stopped at its ' +
      'few ms and run in a query process',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const use = inThreadUse();
      this.inc({ outcome: 'answered' }, use.answered);
      this.inc({ outcome: 'stopped' }, use.stopped);
    },
  });
  new Counter({
    name: 'quarry_kept_answers_total',
    help: 'Lookups of kept whole GET answers, by endpoint kind: sent kept (hit) or made (miss)',
    labelNames: ['kind', 'result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, counts] of keptGetUse()) {
        this.inc({ kind, result: 'hit' }, counts.hits);
        this.inc({ kind, result: 'miss' }, counts.misses);
      }
    },
  });
  new Counter({
    name: 'quarry_plan_cache_lookups_total',
    help: 'Lookups of compiled QueryBuilder plans: found kept (hit) or compiled (miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const use = planCacheUse();
      this.reset();
      this.inc({ result: 'hit' }, use.hits);
      this.inc({ result: 'miss' }, use.misses);
    },
  });
  new Counter({
    name: 'quarry_archive_extractions_total',
    help: 'Archive databases extracted into the cache folder (not reused from it)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(extractionStats().count);
    },
  });
  new Counter({
    name: 'quarry_archive_extraction_seconds_total',
    help: 'Time spent extracting archive databases',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(extractionStats().seconds);
    },
  });
  new Counter({
    name: 'quarry_remote_archive_requests_total',
    help: 'HTTP requests made to the servers of archives at URLs (range reads and checks)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(remoteRequests());
    },
  });
  new Gauge({
    name: 'quarry_remote_archive_cache_bytes',
    help: 'Bytes of archives at URLs kept in memory (bounded per serving process)',
    registers: [registry],
    collect() {
      this.set(remoteBlocks.bytes);
    },
  });
  new Gauge({
    name: 'quarry_processes',
    help: 'Serving processes whose metrics this answer sums',
    registers: [registry],
    collect() {
      this.set(1);
    },
  });
  storageGauges(registry, openNow);
  const sources = new Counter({
    name: 'quarry_source_requests_total',
    help: `Requests that read a source, by source: the first ${SOURCE_LABELS} sources asked for are named, the others counted as "(other)"`,
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const labelled = new Set<string>();
  new Gauge({
    name: 'quarry_sources',
    help: 'Sources known to the serving process, and those of them open now',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'known' }, catalogState?.().known ?? 0);
      this.set({ state: 'open' }, catalogState?.().open ?? openNow().length);
    },
  });

  fileBudgetGauges(registry);

  const statements = queryTime.of();
  const undo = observeQueries((ms, error) => {
    queryTime.observe(statements, ms / 1000);
    if (error instanceof QueryTimeoutError) timeouts.inc();
  });

  // Each kind's counts and histogram, looked up once per kind.
  const series = new Map<EndpointKind, RequestSeries>();
  const seriesOf = (kind: EndpointKind) => {
    let found = series.get(kind);
    if (found === undefined) {
      found = { byStatus: requests.of(kind), duration: durations.of(kind) };
      series.set(kind, found);
    }
    return found;
  };

  return {
    registry,
    sourceRequest(name) {
      // Bounded cardinality whatever the number of sources: a scrape stays small with 10,000 of them.
      if (!labelled.has(name)) {
        if (labelled.size >= SOURCE_LABELS) name = '(other)';
        else labelled.add(name);
      }
      sources.inc({ source: name });
    },
    request(kind, status, ms) {
      const s = seriesOf(kind);
      s.byStatus[status] = (s.byStatus[status] ?? 0) + 1;
      durations.observe(s.duration, ms / 1000);
    },
    conditional(hit) {
      conditional.inc({ result: hit ? 'not_modified' : 'modified' });
    },
    close: undo,
  };
}

/** Pools, queues and readiness of the storages, read when scraped. */
function storageGauges(registry: Registry, openNow: () => readonly StorageBackend[]) {
  new Gauge({
    name: 'quarry_queries_running',
    help: 'Queries running on a connection (SQLite query processes), per source',
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const b of openNow()) {
        const state = admissionState(b);
        if (state) this.set({ source: b.name }, state.running);
      }
    },
  });
  new Gauge({
    name: 'quarry_queries_waiting',
    help: 'Queries waiting for a connection (the worker queue), per source and lane',
    labelNames: ['source', 'lane'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const b of openNow()) {
        const state = admissionState(b);
        if (!state) continue;
        this.set({ source: b.name, lane: 'ordinary' }, state.waiting);
        this.set({ source: b.name, lane: 'heavy' }, state.heavyWaiting);
      }
    },
  });
  // One look at the storages' health serves the three gauges of a scrape: prom-client starts their collect()
  // in one synchronous pass, so the look is kept until the next turn of the event loop, not for a time.
  let seen: Promise<{ backends: readonly StorageBackend[]; states: SourceHealth[] }> | undefined;
  const healthNow = () => {
    if (seen === undefined) {
      const backends = openNow();
      seen = Promise.all(backends.map((b) => sourceHealth(b, HEALTH_MS))).then((states) => ({
        backends,
        states,
      }));
      setImmediate(() => (seen = undefined));
    }
    return seen;
  };
  const eachServer = async (set: (labels: ServerLabels, s: ServerState) => void) => {
    const { backends, states } = await healthNow();
    backends.forEach((b, i) => {
      for (const s of states[i]!.servers ?? []) set({ source: b.name, server: s.server, role: s.role }, s);
    });
  };
  new Gauge({
    name: 'quarry_db_sessions',
    help: 'PostgreSQL pool per database server: sessions open (total), idle, and queries waiting for one',
    labelNames: ['source', 'server', 'role', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      await eachServer((labels, s) => {
        this.set({ ...labels, state: 'total' }, s.sessions.total);
        this.set({ ...labels, state: 'idle' }, s.sessions.idle);
        this.set({ ...labels, state: 'waiting' }, s.sessions.waiting);
      });
    },
  });
  new Gauge({
    name: 'quarry_db_server_up',
    help: 'Whether a database server takes queries (1) or is out after a failure (0); the least of the processes',
    labelNames: ['source', 'server', 'role'] as const,
    registers: [registry],
    aggregator: 'min',
    async collect() {
      this.reset();
      await eachServer((labels, s) => this.set(labels, s.up ? 1 : 0));
    },
  });
  new Gauge({
    name: 'quarry_source_ready',
    help: 'Whether a source can answer (1) or not (0), as /readyz says; the least of the processes',
    labelNames: ['source', 'kind'] as const,
    registers: [registry],
    aggregator: 'min',
    async collect() {
      const { backends, states } = await healthNow();
      this.reset();
      backends.forEach((b, i) => this.set({ source: b.name, kind: b.kind }, states[i]!.ready ? 1 : 0));
    },
  });
}

type ServerLabels = { source: string; server: string; role: string };

interface AdmissionState {
  running: number;
  waiting: number;
  heavyWaiting: number;
}

/** A storage's database that admits queries to connections (SQLite's pool) says how many run and wait. */
function admissionState(backend: StorageBackend): AdmissionState | undefined {
  const state = (backend.db as { state?: AdmissionState }).state;
  return typeof state?.running === 'number' ? state : undefined;
}

/** The open-file budget (src/storage/file-budget.ts): its bound, what is held of it, and what was closed for room. */
function fileBudgetGauges(registry: Registry) {
  new Gauge({
    name: 'quarry_open_files_budget',
    help: 'Files the serving process may keep open between requests (sources, side tables): --max-open-files',
    registers: [registry],
    collect() {
      this.set(fileBudget.limit);
    },
  });
  new Gauge({
    name: 'quarry_open_files_held',
    help: 'Files kept open now by open sources and OPTIMADE side tables, within quarry_open_files_budget',
    registers: [registry],
    collect() {
      this.set(fileBudget.used);
    },
  });
  new Gauge({
    name: 'quarry_open_files_closed_for_room',
    help: 'Sources and side tables closed (least recently used first) to keep within the budget, since start',
    registers: [registry],
    collect() {
      this.set(fileBudget.closedForRoom);
    },
  });
}
