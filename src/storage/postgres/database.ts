/**
 * A core.psql_dos database, read through a bounded pool of read-only sessions. Every session refuses writes
 * (default_transaction_read_only) and stops statements at the time limit; a database that goes away answers
 * 503 quickly, and the pool reconnects by itself once it is back.
 */
import pg from 'pg';
import {
  DatabaseUnavailableError,
  QueryDataError,
  QueryTimeoutError,
  type Database,
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
  /** Where to report sessions that fail while idle (the database restarted, say). */
  onIdleError?: (error: Error) => void;
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

export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly where: string;

  constructor(options: PostgresOptions) {
    const timeout = Math.max(1, Math.round(options.timeoutMs ?? 30_000));
    const url = new URL(options.url);
    this.where = `${url.hostname || 'localhost'}:${url.port || 5432}${url.pathname}`;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 8,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      application_name: 'quarry',
      options: `-c default_transaction_read_only=on -c statement_timeout=${timeout} -c TimeZone=UTC`,
      types,
    });
    // An idle session dropped by the server (restart, admin) must not bring the process down.
    this.pool.on('error', (error) => options.onIdleError?.(error));
  }

  async all(statement: SqlStatement): Promise<SqlRow[]> {
    try {
      const result = await this.pool.query(statement.sql, statement.params);
      return result.rows as SqlRow[];
    } catch (error) {
      throw this.translate(error);
    }
  }

  async values(statement: SqlStatement): Promise<unknown[][]> {
    try {
      const result = await this.pool.query({
        text: statement.sql,
        values: statement.params,
        rowMode: 'array',
      });
      return result.rows as unknown[][];
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Sessions open, idle, and requests waiting for one (for tests and monitoring). */
  get sessions(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  private translate(error: unknown): Error {
    const e = error as Error & { code?: string };
    const code = e.code ?? '';
    if (code === '57014') {
      return new QueryTimeoutError(
        'The query took longer than the time limit of this server; narrow it down.',
      );
    }
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
    await this.pool.end();
  }
}

function isConnectionFailure(error: Error): boolean {
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(
    error.message,
  );
}
