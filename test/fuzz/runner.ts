/**
 * Drives generated requests through the Fastify app in-process and judges every answer: it arrives within the
 * per-case time, it is no 500 (nor another 5xx than a time limit's 503 or the reference's 501 for exports it
 * does not offer), and an error is JSON with a string `message`.
 */
import type { FastifyInstance } from 'fastify';
import { readLines } from '../conformance/corpus.js';
import { queryBuilderRequest } from './bodies.js';
import { restRequest, type Corpus, type FuzzRequest } from './urls.js';
import { Rng } from './values.js';

export interface FuzzOptions {
  label: string;
  seed: number;
  cases: number;
  /** Wall-clock bound of the whole run; cases past it are not sent (the summary says how many ran). */
  budgetMs: number;
  caseTimeoutMs: number;
}

export interface Failure {
  index: number;
  request: FuzzRequest;
  problem: string;
}

export interface FuzzReport {
  label: string;
  ran: number;
  statuses: Map<number, number>;
  failures: Failure[];
  slowest: { ms: number; request: FuzzRequest };
  ms: number;
}

/** Statuses of the 5xx range a correct server may answer: 501 (exports the reference does not offer either) and 503. */
const ALLOWED_5XX = new Set([501, 503]);

export async function runFuzz(
  app: FastifyInstance,
  corpus: Corpus,
  options: FuzzOptions,
): Promise<FuzzReport> {
  const rng = new Rng(options.seed);
  const report: FuzzReport = {
    label: options.label,
    ran: 0,
    statuses: new Map(),
    failures: [],
    slowest: { ms: -1, request: { method: 'GET', url: '' } },
    ms: 0,
  };
  const started = Date.now();
  for (let index = 0; index < options.cases; index++) {
    if (Date.now() - started > options.budgetMs) break;
    const request = rng.chance(0.6) ? restRequest(rng, corpus) : queryBuilderRequest(rng, corpus);
    const t0 = performance.now();
    const problem = await judge(app, request, options.caseTimeoutMs, report.statuses);
    const ms = performance.now() - t0;
    if (ms > report.slowest.ms) report.slowest = { ms, request };
    if (problem !== undefined) report.failures.push({ index, request, problem });
    report.ran++;
  }
  report.ms = Date.now() - started;
  return report;
}

async function judge(
  app: FastifyInstance,
  request: FuzzRequest,
  timeoutMs: number,
  statuses: Map<number, number>,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)),
  );
  let answer;
  try {
    answer = await Promise.race([
      app.inject({
        method: request.method,
        url: request.url,
        payload: request.payload,
        headers: request.payload === undefined ? {} : { 'content-type': 'application/json' },
      }),
      timeout,
    ]);
  } catch (error) {
    return `the request failed in the server: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
  if (answer === 'timeout') return `no answer within ${timeoutMs} ms`;
  const status = answer.statusCode;
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  if (status >= 500 && !ALLOWED_5XX.has(status)) return `status ${status}: ${answer.body.slice(0, 300)}`;
  const type = String(answer.headers['content-type'] ?? '');
  if (request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
  if (status >= 400 || type.startsWith('application/json')) {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return `status ${status}: the body is not JSON: ${answer.body.slice(0, 200)}`;
    }
    // GET /querybuilder/ answers its 405 in the reference's envelope, the message under "data".
    const message =
      (body as { message?: unknown; data?: { message?: unknown } })?.message ??
      (status === 405 ? (body as { data?: { message?: unknown } })?.data?.message : undefined);
    if (status >= 400 && typeof message !== 'string') {
      return `status ${status}: no string "message" in ${answer.body.slice(0, 200)}`;
    }
    if (status === 503 && !/time limit|limit of/.test(message as string)) {
      return `status 503 that is not a time limit: ${answer.body.slice(0, 200)}`;
    }
  }
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the served data holds, asked of the server itself, and the requests real clients sent. */
export async function collectCorpus(app: FastifyInstance, recorded?: string): Promise<Corpus> {
  const get = async (url: string): Promise<Record<string, unknown>> => {
    const answer = await app.inject({ method: 'GET', url });
    if (answer.statusCode !== 200)
      throw new Error(`${url} answered ${answer.statusCode}: ${answer.body.slice(0, 200)}`);
    return answer.json();
  };
  const data = async (url: string, key: string) =>
    ((await get(url)).data as Record<string, Record<string, unknown>[]>)[key] ?? [];
  const listing = ((await get('/api/v4/')).data as { available_endpoints: string[] }).available_endpoints;
  const nodes = await data('/api/v4/nodes/?limit=400&orderby=-id&attributes=true', 'nodes');
  const processes = await data('/api/v4/nodes/?limit=100&node_type=like="process.%"', 'nodes');
  const attributeKeys = new Set<string>();
  for (const n of nodes)
    if (isRecord(n.attributes)) for (const k of Object.keys(n.attributes)) attributeKeys.add(k);
  const fullTypes = new Set<string>();
  const walk = (entry: unknown) => {
    if (!isRecord(entry)) return;
    if (typeof entry.full_type === 'string') fullTypes.add(entry.full_type);
    if (Array.isArray(entry.subspaces)) entry.subspaces.forEach(walk);
  };
  walk((await get('/api/v4/nodes/full_types/')).data);
  const corpus: Corpus = {
    endpoints: listing.map((line) => line.trim().split(/\s+/).pop() as string),
    nodeUuids: nodes.map((n) => String(n.uuid)),
    processUuids: processes.map((n) => String(n.uuid)),
    computerUuids: (await data('/api/v4/computers/', 'computers')).map((c) => String(c.uuid)),
    groupUuids: (await data('/api/v4/groups/', 'groups')).map((g) => String(g.uuid)),
    userIds: (await data('/api/v4/users/', 'users')).map((u) => Number(u.id)),
    attributeKeys: [...attributeKeys],
    fullTypes: [...fullTypes],
    recordedPaths: [],
    recordedBodies: [],
  };
  if (recorded !== undefined) {
    for (const line of readLines(recorded)) {
      const request = JSON.parse(line) as { method: string; path: string; body?: unknown };
      if (request.method === 'POST' && isRecord(request.body)) corpus.recordedBodies.push(request.body);
      else if (request.method === 'GET') corpus.recordedPaths.push(request.path);
    }
  }
  return corpus;
}

/** One line: requests, statuses, 5xx, the slowest answer. */
export function summary(report: FuzzReport): string {
  const statuses = [...report.statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  const fives = [...report.statuses].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
  const slow = report.slowest.request;
  return (
    `fuzz ${report.label}: ${report.ran} requests in ${(report.ms / 1000).toFixed(1)} s; statuses ${statuses}; ` +
    `5xx ${fives} (500: ${report.statuses.get(500) ?? 0}); failures ${report.failures.length}; slowest ` +
    `${report.slowest.ms.toFixed(0)} ms (${slow.method} ${slow.url.slice(0, 100)})`
  );
}

export function describeFailure(f: Failure, seed: number): string {
  const body = f.request.payload === undefined ? '' : ` body ${f.request.payload.slice(0, 400)}`;
  return `#${f.index} (seed ${seed}) ${f.request.method} ${f.request.url.slice(0, 400)}${body}\n  -> ${f.problem}`;
}
