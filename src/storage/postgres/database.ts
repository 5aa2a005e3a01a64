/**
 * A core.psql_dos database, read through a bounded pool of read-only sessions. Every session refuses writes
 * (default_transaction_read_only) and stops statements at the time limit; a database that goes away answers
 * 503 quickly, and the pool reconnects by itself once it is back.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { KeptMap } from '../../util/kept-map.js';
import { Admission, type Ticket } from '../admission.js';
import { CostEstimates } from '../cost-estimates.js';
import { postgresTarget } from './url.js';
import {
  DatabaseUnavailableError,
  QueryDataError,
  QueryTimeoutError,
  type Database,
  type QueryBudget,
  type SqlRow,
  type SqlStatement,
} from '../types.js';

export interface PostgresOptions {
  /** A libpq connection URL: postgres://user:password@host:port/database. */
  url: string;
  /** Most sessions open at once (default 8); further requests wait for one. */
  poolSize?: number;
  /** Time limit of one statement, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** How long a request waits for a session or a connection before answering 503 (default 5 s). */
  connectTimeoutMs?: number;
  /** Ordinary queries that may wait for a session before more are refused (default 256). */
  maxWaiting?: number;
  /** Where to report sessions that fail while idle (the database restarted, say). */
  onIdleError?: (error: Error) => void;
  /** How long a data version is trusted before the server is asked again, in milliseconds (default 1 s). */
  versionCheckMs?: number;
}

const OID = { int8: 20, numeric: 1700, json: 114, jsonb: 3802, timestamp: 1114, timestamptz: 1184 };
const TEXT_KEPT = new Set([OID.json, OID.jsonb, OID.timestamp, OID.timestamptz]);

/**
 * JSON and datetimes arrive as text and are decoded by the query engine, as they are for SQLite (the session's
 * time zone is UTC, so datetimes read `2020-09-16 12:26:40.370123+00`); counts (int8) and numerics arrive as
 * numbers, not strings.
 */
const types = {
  getTypeParser(oid: number, format?: string) {
    if (TEXT_KEPT.has(oid)) return (value: string) => value;
    if (oid === OID.int8 || oid === OID.numeric) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** SQLSTATE classes and codes that mean the database is not reachable now. */
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
]);

const DATA_ERROR =
  'A value of this request does not fit the type it meets in the database: check the filter values against ' +
  'the columns they compare with (numbers for ids, date-times for ctime, mtime and time), and the casts ' +
  '("cast": "i", "f", "b") and functions ("func") of the projections against the values they convert.';

/**
 * Statements a session keeps prepared before it is closed instead of reused: the API's own shapes are a few
 * dozen, but filters and posted queries can make any number, and each costs the server memory per session.
 */
const PREPARED_PER_SESSION = 500;

/**
 * A statement expected (from its recent runs, see cost-estimates.ts) to run this long goes to the heavy lane,
 * until quicker runs bring its estimate down again.
 */
const HEAVY_MS = 250;

/**
 * Which transactions the server sees as committed, as text (`xmin:xmax:in-progress`). It changes when a write
 * commits anywhere in the cluster, on a primary and on a standby replaying it alike, and costs no table scan.
 */
const SNAPSHOT = 'SELECT txid_current_snapshot()::text AS snapshot';

export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  /** `host:port/database`, for messages, `/readyz` and `/metrics`. */
  readonly where: string;
  private readonly pool: pg.Pool;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly admission: Admission;
  /** Expected run times by statement: the admission's measure of the work ahead of a query. */
  private readonly costs = new CostEstimates();
  private readonly prepared = new WeakMap<pg.PoolClient, Set<string>>();
  private readonly versionCheckMs: number;
  private version: { value: Promise<string>; at: number } | undefined;

  constructor(options: PostgresOptions) {
    this.timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? 30_000));
    this.versionCheckMs = options.versionCheckMs ?? 1_000;
    this.url = options.url;
    this.where = postgresTarget(options.url).where;
    const size = options.poolSize ?? 8;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: size,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      application_name: 'quarry',
      // The session's own statement timeout stops a statement even if Quarry's cancel never reaches the server.
      options: `-c default_transaction_read_only=on -c statement_timeout=${this.timeoutMs} -c TimeZone=UTC`,
      types,
    });
    // Every use of the pool is admitted first, so it never has requests queued inside it.
    this.admission = new Admission({ slots: size, maxWaiting: options.maxWaiting ?? 256 });
    // An idle session dropped by the server (restart, admin) must not bring the process down.
    this.pool.on('error', (error) => options.onIdleError?.(error));
    // Nor one that fails between the pool's hands and a query's (a server shutting down tells every session at
    // once): each session always has a listener; the query that uses it next fails and closes it.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  all(statement: SqlStatement, budget?: QueryBudget): Promise<SqlRow[]> {
    return this.run(statement, false, budget) as Promise<SqlRow[]>;
  }

  values(statement: SqlStatement, budget?: QueryBudget): Promise<unknown[][]> {
    return this.run(statement, true, budget) as Promise<unknown[][]>;
  }

  /**
   * A token that changes when the data can have changed: the server's snapshot, asked at most once per
   * `versionCheckMs` however many requests want it, so that a request costs no scan of the nodes to see whether
   * what Quarry keeps is still true.
   */
  dataVersion(budget?: QueryBudget): Promise<string> {
    const now = Date.now();
    if (this.version && now - this.version.at < this.versionCheckMs) return this.version.value;
    const value = this.all({ sql: SNAPSHOT, params: [] }, budget).then((rows) => String(rows[0]?.snapshot));
    const version = { value, at: now };
    this.version = version;
    // A failed check is asked again by the next request, not remembered.
    value.catch(() => {
      if (this.version === version) this.version = undefined;
    });
    return value;
  }

  /**
   * Whether the server answers now, within `waitMs`: a session of its own, outside the admission of queries,
   * so that a busy pool does not make a healthy server look down.
   */
  async ping(waitMs = 2_000): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: waitMs,
      application_name: 'quarry',
      options: `-c statement_timeout=${waitMs}`,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (error) {
      throw this.translate(error);
    } finally {
      void client.end().catch(() => undefined);
    }
  }

  private async run(statement: SqlStatement, arrays: boolean, budget?: QueryBudget): Promise<unknown[]> {
    // The request's deadline, and never more than the storage's own limit for one statement.
    const deadline = Math.min(budget?.deadline ?? Infinity, Date.now() + this.timeoutMs);
    const shape = statementName(statement.sql);
    const posted = budget?.heavy === true;
    const cost = this.costs.estimate(shape, posted);
    const ticket: Ticket = { heavy: posted || cost >= HEAVY_MS, posted, cost, client: budget?.client ?? '' };
    if (!this.admission.tryEnter(ticket)) await this.admission.wait(ticket, deadline, this.timeoutMs / 1000);
    // A session's opening (after a restart of the server, each one's) is not the statement's cost.
    let started = performance.now();
    try {
      const client = await this.connect();
      started = performance.now();
      const rows = await this.runOn(client, statement, arrays, deadline);
      this.costs.record(shape, performance.now() - started, ticket.heavy);
      return rows;
    } catch (error) {
      const translated = this.translate(error);
      // A statement stopped at its limit counts for the time it ran; an outage says nothing of its cost.
      if (translated instanceof QueryTimeoutError)
        this.costs.record(shape, performance.now() - started, ticket.heavy);
      throw translated;
    } finally {
      this.admission.leave(ticket);
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * Run one statement on a session, cancelled on the server when the request's time is up. A cancelled
   * session is closed rather than reused: a cancel that arrives late must not stop another request's query.
   */
  private runOn(
    client: pg.PoolClient,
    statement: SqlStatement,
    arrays: boolean,
    deadline: number,
  ): Promise<unknown[]> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      client.release();
      return Promise.reject(QueryTimeoutError.atLimit(this.timeoutMs));
    }
    const name = this.preparedName(client, statement.sql);
    const query: Promise<{ rows: unknown[] }> = client.query({
      text: statement.sql,
      values: statement.params,
      ...(name === undefined ? {} : { name }),
      ...(arrays ? { rowMode: 'array' } : {}),
    });
    // A session that prepared its fill of statements is closed after this one, and a fresh one starts empty.
    const full = (this.prepared.get(client)?.size ?? 0) >= PREPARED_PER_SESSION;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (release: () => void, answer: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        client.removeListener('error', onError);
        release();
        answer();
      };
      // Any error leaves the session in doubt: it is closed, not given back (as pg's own pool.query does).
      const onError = (error: Error) =>
        settle(
          () => client.release(error),
          () => reject(error),
        );
      client.once('error', onError);
      const timer = setTimeout(
        () =>
          settle(
            () => (cancelQuery(this.url, client), client.release(true)),
            () => reject(QueryTimeoutError.atLimit(this.timeoutMs)),
          ),
        remaining,
      );
      query.then(
        (result) =>
          settle(
            () => client.release(full || undefined),
            () => resolve(result.rows as unknown[]),
          ),
        onError,
      );
    });
  }

  /**
   * Statements run by name, so that each session parses and plans a shape once rather than on every request.
   * The name is the text's digest: the same text has the same name in every session and process.
   */
  private preparedName(client: pg.PoolClient, sql: string): string | undefined {
    let names = this.prepared.get(client);
    if (!names) this.prepared.set(client, (names = new Set()));
    const name = statementName(sql);
    if (names.has(name)) return name;
    if (names.size >= PREPARED_PER_SESSION) return undefined;
    names.add(name);
    return name;
  }

  /** Sessions open, idle, and requests waiting for one (for tests and monitoring). */
  get sessions(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  private translate(error: unknown): Error {
    const e = error as Error & { code?: string };
    const code = e.code ?? '';
    if (e instanceof QueryTimeoutError || e instanceof DatabaseUnavailableError) return e;
    if (code === '57014') return QueryTimeoutError.atLimit(this.timeoutMs);
    if (code.startsWith('22') || code === '42883' || code === '42804') {
      // The database's own text names its types and internals, not what the client sent: it stays in the
      // error's cause (for the server log), and the answer says where to look.
      return new QueryDataError(DATA_ERROR, { cause: e });
    }
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || isConnectionFailure(e)) {
      return new DatabaseUnavailableError(
        `The database at ${this.where} is not reachable now (${e.message}); try again when it is back.`,
      );
    }
    return e;
  }

  async close(): Promise<void> {
    // Queries waiting for a session are refused now, not at their deadlines.
    this.admission.drain(new Error('the database is closed'));
    await this.pool.end();
  }
}

/** Names by statement text: the same few dozen texts come back on every request, each digested once. */
const NAMES_KEPT = 2_000;
const names = new KeptMap<string>(NAMES_KEPT);

function statementName(sql: string): string {
  return names.get(sql) ?? names.set(sql, `q${createHash('sha1').update(sql).digest('base64url')}`);
}

/**
 * Ask the server to stop the statement a session is running (PostgreSQL's cancel request, sent on a
 * connection of its own). Nothing waits for it: the request has been answered already.
 */
function cancelQuery(url: string, client: pg.PoolClient) {
  const running = (client as unknown as { activeQuery?: unknown }).activeQuery;
  if (!running) return;
  // Client.cancel is how pg sends a cancel request; its typings leave it out.
  const canceller = new pg.Client({ connectionString: url }) as pg.Client & {
    cancel(target: pg.ClientBase, query: unknown): void;
  };
  canceller.on('error', () => undefined);
  canceller.cancel(client, running);
}

function isConnectionFailure(error: Error): boolean {
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(
    error.message,
  );
}
