/**
 * What a posted query nobody asked before costs the server, against its floors (issue 36, point 2): at one
 * client, each request a body never posted before, the CPU time of all the server's processes per answer
 * (from /proc), against
 * - the SQL floor: the very statements the server runs for such a query (captured by serving one in this
 *   process), run straight on the database (the same SQLite file and settings, or a PostgreSQL client), and
 * - the HTTP floor: the empty route's server reading the same body posted and sending kept bytes of the
 *   answer's size, at one client, its CPU per answer.
 * Beside the ratio, each query's steps in this process (parse, validate and plan, SQL straight and through the
 * storage, decode and format, write), each with its floor (src/bench/posted-steps.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StorageBackend } from '../storage/types.js';
import { benchBackend } from './backend.js';
import { child } from './child.js';
import type { DriveJob, DriveResult } from './drive.js';
import { runDrive, withFreshNumber, type FreshAt } from './drive-client.js';
import { dataFloor, recordAccesses, sqliteFileOf } from './floors.js';
import { CALCULATIONS_AND_OUTPUT_DICTS, EXPLORER_GRID_QUERY } from './mix.js';
import { postedSteps, type PostedStep } from './posted-steps.js';
import { writeStatementsSpec } from './served-statements.js';
import { loadAverage, processTable, queryProcessCpuMs, treeCpuMs } from './process-table.js';
import { median } from './median.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The join of the comparison: calculations and their output dictionaries, 20 rows. */
export const JOIN_QUERY = {
  path: CALCULATIONS_AND_OUTPUT_DICTS,
  project: { c: ['id', 'uuid'], o: ['id', 'uuid', 'attributes'] },
  limit: 20,
};

/** Where a never-asked body takes its number: the join a filter that keeps its 20 rows, the grid its limit. */
export interface NeverAsked {
  name: string;
  body: Record<string, unknown>;
  freshAt: FreshAt;
  /**
   * The first number (then counting up per server): the grid's limits stay within the largest answer (10,000
   * rows), so that its rows are read while it is counted, as a visitor's grid is.
   */
  first: number;
}

export const NEVER_ASKED: NeverAsked[] = [
  {
    name: 'posted join, 20 rows',
    body: { ...JOIN_QUERY, filters: { c: { id: { '>': -1 } } } },
    freshAt: { path: ['filters', 'c', 'id', '>'], negative: true },
    first: 2,
  },
  { name: "the explorer's grid", body: EXPLORER_GRID_QUERY, freshAt: { path: ['limit'] }, first: 5_000 },
];

/**
 * Seconds of never-asked bodies each serving process answers before the measure. A server just started answered
 * the join at 2-3 times its steady CPU per answer for its first 6 s (one client, 1,000-1,200 µs a second apart, then
 * 400-450 µs from the seventh on): the JIT compiles the request path meanwhile. A served API runs far longer than
 * that, and over many connections: the supervisor hands each new connection to the next process, so the warm-up
 * is SERVER_WARM_UP_CONNECTIONS connections to each process in turn. With one connection, the rounds' first
 * connection went to a process that had answered none, and a process's second connection still had its code
 * compiled again (V8's trace: some 300 functions, "wrong map" for the new socket's objects), some 50 at its third
 * and a dozen at its fourth.
 */
const SERVER_WARM_UP_S = 8;
const SERVER_WARM_UP_CONNECTIONS = 2;
/** Rounds of each query at least (more with --tries): see neverAskedRatios. */
export const NEVER_ASKED_ROUNDS = 3;
/** The floors' server has little code to compile. */
const FLOOR_WARM_UP_S = 4;
/** About how long the SQL floor is timed in each round: its median over a stretch, not one moment's. */
const SQL_FLOOR_MS = 500;

/**
 * The floors' load: `bytes(size, seconds, holdUs)`, the empty route reading the posted `body` and sending `size`
 * bytes (after holding its CPU `holdUs`), since a posted query's HTTP is a body read as well as an answer sent;
 * `served(seconds)`, on SQLite, the statements of `spec` run straight for the posted `body`.
 */
function floorJobs(base: string, spec: string | undefined, body: string) {
  const bytes = (size: number, seconds: number, holdUs = 0): DriveJob => ({
    url: base,
    method: 'POST',
    paths: [holdUs > 0 ? `/bytes/${size}?hold=${holdUs}` : `/bytes/${size}`],
    body,
    connections: 1,
    duration: seconds,
  });
  const served =
    spec === undefined
      ? undefined
      : (seconds: number): DriveJob => ({
          url: base,
          method: 'POST',
          paths: [`/statements?spec=${encodeURIComponent(spec)}`],
          body,
          connections: 1,
          duration: seconds,
        });
  return { bytes, served };
}

/** Where each server's never-asked numbers of each query go on: no server is asked a body twice. */
const nextNumbers = new Map<string, number>();

/** The load generator's settings for never-asked bodies of `query` at `base`. */
export function freshJob(base: string, query: NeverAsked): Pick<DriveJob, 'freshLimitsFrom' | 'freshAt'> {
  return { freshLimitsFrom: nextNumbers.get(`${base} ${query.name}`) ?? query.first, freshAt: query.freshAt };
}

/** After a run of the load generator: the numbers up to `next` were asked. */
export function freshAsked(base: string, query: NeverAsked, next: number): void {
  nextNumbers.set(`${base} ${query.name}`, next);
}

/** The body `query` posts with the number `n`. */
export function freshBody(query: NeverAsked, n: number): Record<string, unknown> {
  return withFreshNumber(query.body, n, query.freshAt);
}

export interface NeverAskedServer {
  storage: string;
  base: string;
  pid: number;
  /** How the bench opens the same storage in its own process: benchBackend's arguments. */
  open: [string, string?];
}

export interface NeverAskedRow {
  storage: string;
  query: string;
  answers: number;
  bytes: number;
  /** Server CPU per never-asked answer, µs. */
  cpuUs: number;
  /** The part of it spent in SQLite query processes (0 for PostgreSQL), µs. */
  queryProcessUs: number;
  /** The statements straight on the database, timed in each round right after the server's window. */
  sqlFloorUs: number;
  httpFloorUs: number;
  /**
   * The HTTP floor at the answer's pace: the empty route's server holding its CPU busy as long as the answer
   * takes beyond HTTP, then sending the same bytes; its CPU per answer less the hold. At one client a slower
   * answer costs HTTP more (the idle cores woken at each answer and request), whatever the server does.
   */
  pacedHttpFloorUs: number;
  ratio: number;
  /** Against the SQL floor plus the HTTP floor at the answer's pace (the median of the rounds'). */
  pacedRatio: number;
  /** That ratio in each round: how far the machine's noise moved it. */
  pacedRatios: number[];
  /**
   * The query's select straight on the database (its rows read, nothing written): on SQLite, where the server
   * runs a statement that writes the records as JSON instead, the SQL floor holds that writing, and this not.
   */
  rowsFloorUs: number;
  /** Against the rows' floor plus the HTTP floor at the answer's pace. */
  rowsRatio: number;
  /**
   * On SQLite: the SQL floor served (src/bench/served-statements.ts), the empty route's server running the same
   * statements straight at each request of one client, its CPU per answer (SQL and HTTP in one figure).
   */
  servedFloorUs?: number;
  /** Against the SQL floor served (the median of the rounds'). */
  servedRatio?: number;
  servedRatios?: number[];
  load: string;
  steps: PostedStep[];
}

/**
 * CPU µs per answer of `pid`'s processes while `job` runs, and of its query processes among them, with the
 * run's figures.
 */
async function cpuPerAnswer(
  pid: number,
  job: DriveJob,
): Promise<{ us: number; queryUs: number; result: DriveResult }> {
  // Both figures from one reading of the process table, before and after.
  const read = () => {
    const table = processTable();
    return { all: treeCpuMs(pid, table), query: queryProcessCpuMs(pid, table) };
  };
  const before = read();
  const result = await runDrive(job);
  const after = read();
  const per = (ms: number) => (result.total > 0 ? (1000 * ms) / result.total : 0);
  return { us: per(after.all - before.all), queryUs: per(after.query - before.query), result };
}

/**
 * The ratio of each query on each server, at one client for `duration` seconds, in `rounds` rounds (each the
 * server's window, then the floors': the SQL floor timed over about SQL_FLOOR_MS, then the HTTP floors' windows).
 * `processes`: the empty route's server runs on as many as Quarry does.
 *
 * In rounds because this machine's noise comes in spells: the same build answered the join at 320-330 µs in
 * some windows of a few seconds and 400-480 in others, so one window of the server and one of the floors a
 * minute later could differ by a spell. The ratio is taken in each round, from windows next to each other,
 * and the median of the rounds is reported with all of them.
 */
export async function neverAskedRatios(
  servers: NeverAskedServer[],
  processes: number,
  duration: number,
  rounds: number,
): Promise<NeverAskedRow[]> {
  const empty = await child([join(here, 'empty-server.js'), String(processes)]);
  const specs = mkdtempSync(join(tmpdir(), 'quarry-served-'));
  const floorServer = { base: `http://127.0.0.1:${empty.port}`, pid: empty.proc.pid!, specs };
  const rows: NeverAskedRow[] = [];
  try {
    for (const server of servers) {
      const backend = await benchBackend(...server.open);
      try {
        for (const query of NEVER_ASKED)
          rows.push(await measureOne(server, backend, query, floorServer, duration, rounds, processes));
      } finally {
        await backend.close();
      }
    }
  } finally {
    empty.proc.kill();
    rmSync(specs, { recursive: true, force: true });
  }
  return rows;
}

/** One round of a query: the server's window, then the floors' right after it, under about the same load. */
interface Round {
  us: number;
  queryUs: number;
  result: DriveResult;
  sqlUs: number;
  httpUs: number;
  pacedHttpUs: number;
  servedUs?: number;
}

async function measureOne(
  server: NeverAskedServer,
  backend: StorageBackend,
  query: NeverAsked,
  floorServer: { base: string; pid: number; specs: string },
  duration: number,
  roundCount: number,
  processes: number,
): Promise<NeverAskedRow> {
  const job = (seconds: number): DriveJob => ({
    url: server.base,
    name: query.name,
    method: 'POST',
    paths: ['/api/v4/querybuilder/'],
    body: JSON.stringify(query.body),
    connections: 1,
    duration: seconds,
    ...freshJob(server.base, query),
  });
  // Unmeasured first: the server's code compiled by the JIT, the query's shape seen (as a served API runs).
  for (let i = 0; i < processes * SERVER_WARM_UP_CONNECTIONS; i++)
    freshAsked(
      server.base,
      query,
      (await runDrive(job(SERVER_WARM_UP_S / SERVER_WARM_UP_CONNECTIONS))).nextLimit,
    );
  // The statements of one never-asked body, as the server runs them, timed straight on the database (in this
  // process: its plans and counts are its own, so the numbers may be the server's).
  let n = query.first;
  const variant = freshBody(query, n++);
  const accesses = await recordAccesses(backend, [
    { name: query.name, method: 'POST', paths: ['/api/v4/querybuilder/'], body: variant },
  ]);
  const statements = accesses.get(query.name) ?? [];
  const pgUrl = server.open[1];
  // Once to warm the connection and to learn how many repeats fill SQL_FLOOR_MS; then in every round.
  const sqlMs = (await dataFloor(backend, statements, pgUrl)) ?? 0;
  const sqlRepeats = Math.max(15, Math.min(5000, Math.round(SQL_FLOOR_MS / Math.max(sqlMs, 0.01))));
  const steps = await postedSteps(backend, query.body, {
    fresh: () => freshBody(query, n++),
    pgUrl,
  });
  const rowsFloorUs =
    1000 * (steps.find((s) => s.step === 'select (SQL) through the storage')?.floorMs ?? sqlMs);
  const sqlite = sqliteFileOf(backend);
  let spec: string | undefined;
  if (sqlite !== undefined) {
    spec = join(floorServer.specs, `${server.storage} ${query.name}.json`.replace(/[^\w.]+/g, '-'));
    writeStatementsSpec(
      spec,
      sqlite,
      statements.flatMap((a) => a.statements),
    );
  }
  const floors = floorJobs(floorServer.base, spec, JSON.stringify(query.body));
  // As the server's: over as many connections to each of its processes.
  const floorWarmUps = processes * SERVER_WARM_UP_CONNECTIONS;
  for (let i = 0; i < floorWarmUps; i++) await runDrive(floors.bytes(0, FLOOR_WARM_UP_S / floorWarmUps));
  for (let i = 0; floors.served !== undefined && i < floorWarmUps; i++)
    await runDrive(floors.served(FLOOR_WARM_UP_S / floorWarmUps));

  const rounds: Round[] = [];
  for (let round = 0; round < roundCount; round++) {
    const { us, queryUs, result } = await cpuPerAnswer(server.pid, job(duration));
    freshAsked(server.base, query, result.nextLimit);
    if (result.errors > 0) throw new Error(`${server.storage}, ${query.name}: ${result.errors} errors`);
    const sqlUs = 1000 * ((await dataFloor(backend, statements, pgUrl, sqlRepeats)) ?? 0);
    // The empty route's server reading the body and sending an answer of the same size (headers are about 200
    // bytes of it).
    const size = Math.max(0, result.bytes - 200);
    const http = await cpuPerAnswer(floorServer.pid, floors.bytes(size, duration));
    const holdUs = Math.max(0, Math.round(us - http.us));
    const held = await cpuPerAnswer(floorServer.pid, floors.bytes(size, duration, holdUs));
    const servedUs =
      floors.served === undefined
        ? undefined
        : (await cpuPerAnswer(floorServer.pid, floors.served(duration))).us;
    rounds.push({
      us,
      queryUs,
      result,
      sqlUs,
      httpUs: http.us,
      pacedHttpUs: Math.max(http.us, held.us - holdUs),
      servedUs,
    });
  }
  const ratios = (of: (r: Round) => number | undefined) =>
    rounds.map(of).flatMap((x) => (x === undefined ? [] : [Number(x.toFixed(2))]));
  const paced = ratios((r) => r.us / (r.sqlUs + r.pacedHttpUs));
  const served = ratios((r) => (r.servedUs === undefined ? undefined : r.us / r.servedUs));
  const servedUs = median(rounds.flatMap((r) => (r.servedUs === undefined ? [] : [r.servedUs])));
  const row = {
    storage: server.storage,
    query: query.name,
    answers: rounds.reduce((sum, r) => sum + r.result.total, 0),
    bytes: rounds[0]!.result.bytes,
    cpuUs: Math.round(median(rounds.map((r) => r.us))!),
    queryProcessUs: Math.round(median(rounds.map((r) => r.queryUs))!),
    sqlFloorUs: Math.round(median(rounds.map((r) => r.sqlUs))!),
    httpFloorUs: Math.round(median(rounds.map((r) => r.httpUs))!),
    pacedHttpFloorUs: Math.round(median(rounds.map((r) => r.pacedHttpUs))!),
    ratio: median(ratios((r) => r.us / (r.sqlUs + r.httpUs)))!,
    pacedRatio: median(paced)!,
    pacedRatios: paced,
    rowsFloorUs: Math.round(rowsFloorUs),
    rowsRatio: median(ratios((r) => r.us / (rowsFloorUs + r.pacedHttpUs)))!,
    ...(servedUs === undefined
      ? {}
      : { servedFloorUs: Math.round(servedUs), servedRatio: median(served)!, servedRatios: served }),
    load: loadAverage().join(' '),
    steps,
  };
  process.stderr.write(
    `never asked, ${row.storage}, ${row.query}: ${row.cpuUs} µs CPU per answer (query processes ` +
      `${row.queryProcessUs}), floors SQL ${row.sqlFloorUs} + ` +
      `HTTP ${row.httpFloorUs} µs: ${row.ratio}x; at the answer's pace HTTP ${row.pacedHttpFloorUs} µs: ` +
      `${row.pacedRatio}x (rounds ${paced.join(', ')}); rows' floor ${row.rowsFloorUs} µs: ${row.rowsRatio}x` +
      (servedUs === undefined
        ? ''
        : `; SQL floor served ${row.servedFloorUs} µs: ${row.servedRatio}x (rounds ${served.join(', ')})`) +
      ` (load ${row.load})\n`,
  );
  return row;
}

/** The rows as a Markdown table, and each query's steps. */
export function neverAskedLines(rows: NeverAskedRow[]): string[] {
  const lines = [
    '',
    'Never-asked posted queries, 1 client: CPU of all the server processes per answer, against the SQL floor',
    '(the same statements straight on the database) plus the HTTP floor (the empty route reading the same body',
    'posted and sending as many bytes),',
    "back to back and at the answer's pace (the empty route holding its CPU as long as the answer takes first).",
    "The rows' floor: the query's select straight (on SQLite the server runs a statement writing the records instead).",
    'Of the server CPU, the part its SQLite query processes spent (statements and the trips to them).',
    'On SQLite, the SQL floor served: the empty route running the same statements straight at each request, its',
    'CPU per answer (SQL and HTTP together, paid as a server pays them).',
    'Each figure the median of the rounds (the server, then the floors, next to each other in time); in brackets',
    "each round's ratio, to show the machine's noise.",
    '',
    "| storage | query | answers | bytes | server CPU µs | of which query processes | SQL floor µs | HTTP floor µs | × floors | HTTP floor at the answer's pace µs | × those floors | rows' floor µs | × rows' and paced floors | SQL floor served µs | × that floor | load |",
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.storage} | ${r.query} | ${r.answers} | ${r.bytes} | ${r.cpuUs} | ${r.queryProcessUs} | ${r.sqlFloorUs} | ` +
        `${r.httpFloorUs} | ${r.ratio} | ${r.pacedHttpFloorUs} | ${r.pacedRatio} (${r.pacedRatios.join(', ')}) | ` +
        `${r.rowsFloorUs} | ${r.rowsRatio} | ${r.servedFloorUs ?? ''} | ` +
        `${r.servedRatio === undefined ? '' : `${r.servedRatio} (${(r.servedRatios ?? []).join(', ')})`} | ${r.load} |`,
    );
  lines.push('', 'Steps in the benchmark process (median ms; floor in brackets):', '');
  const names = [...new Set(rows.flatMap((r) => r.steps.map((s) => s.step)))];
  lines.push(`| step | ${rows.map((r) => `${r.storage}, ${r.query}`).join(' | ')} |`);
  lines.push(`| --- |${rows.map(() => ' ---: |').join('')}`);
  for (const name of names) {
    const cells = rows.map((r) => {
      const s = r.steps.find((x) => x.step === name);
      if (!s) return '';
      return s.floorMs === undefined ? s.ms.toFixed(3) : `${s.ms.toFixed(3)} (${s.floorMs.toFixed(3)})`;
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  return lines;
}
