/**
 * The load generator of the benchmark, in a process of its own: `drive JOB_JSON` drives one request kind with
 * autocannon and prints its figures as JSON. Run inside the harness, autocannon shared a heap (and its
 * collections) with the archive, recorded accesses and floors the harness holds, and its pauses showed as
 * server latency.
 */
import autocannon from 'autocannon';
import { withFreshNumber, type FreshAt } from './drive-client.js';

export interface DriveJob {
  url: string;
  /** The request kind's name (src/bench/mix.ts), for the reports. */
  name?: string;
  method: 'GET' | 'POST';
  paths: string[];
  body?: string;
  /**
   * Every request a query never asked before: `body`'s `limit` set to this number, then counting up with each
   * request of any client (answers kept by the server are never asked for again).
   */
  freshLimitsFrom?: number;
  /**
   * Where the never-asked number goes instead of `limit` (keys into the body), and with which sign: a filter
   * value that keeps the rows (`id > -N`) makes a query of its own without changing its answer's size.
   */
  freshAt?: FreshAt;
  /** Headers of each path, in order. */
  headers?: Record<string, string>[];
  /** Answers with another status count as errors (default: any 2xx). */
  expectStatus?: number;
  connections: number;
  duration: number;
}

export interface DriveResult {
  total: number;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  errors: number;
  /** Bytes received per answer, headers included. */
  bytes: number;
  /** With `freshLimitsFrom`: the next limit not yet asked (where the next run of the same query starts). */
  nextLimit: number;
  /** Answers refused with 503 (among the errors). */
  refused: number;
  /** Requests the client gave up on (no answer within autocannon's time-out; among the errors). */
  timeouts: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as DriveJob;
const headers = job.body === undefined ? undefined : { 'content-type': 'application/json' };
let nextLimit = job.freshLimitsFrom ?? 0;
const template = job.freshLimitsFrom === undefined ? undefined : (JSON.parse(job.body ?? '{}') as object);
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.duration,
  requests: job.paths.map((path, i) => ({
    method: job.method,
    path,
    body: job.body,
    headers: { ...headers, ...job.headers?.[i] },
    ...(template === undefined
      ? {}
      : {
          setupRequest: (request: object) => ({
            ...request,
            body: JSON.stringify(withFreshNumber(template, nextLimit++, job.freshAt)),
          }),
        }),
  })),
});
const expected = job.expectStatus;
const unexpected =
  expected === undefined
    ? result.non2xx
    : result.requests.total -
      ((result.statusCodeStats as Record<string, { count?: number }> | undefined)?.[String(expected)]
        ?.count ?? 0) -
      result.errors;
const figures: DriveResult = {
  total: result.requests.total,
  nextLimit,
  rps: result.requests.average,
  mean: result.latency.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  // autocannon's errors count its time-outs already.
  errors: result.errors + Math.max(0, unexpected),
  bytes: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
  refused: (result.statusCodeStats as Record<string, { count?: number }> | undefined)?.['503']?.count ?? 0,
  timeouts: result.timeouts,
};
process.stdout.write(JSON.stringify(figures));
