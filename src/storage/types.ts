/**
 * The one interface every storage backend (archive, sqlite profile, postgres profile) offers.
 * Asynchronous throughout so that heavy queries can later move off the event loop.
 */
import type { Readable } from 'node:stream';
import type { SharedQueryProcesses } from './shared-query-processes.js';
import type { SummaryFiles } from './summary-files.js';

export type Dialect = 'sqlite' | 'postgres';

/** A SQL statement with positional parameters; values are never spliced into `sql`. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
  /**
   * Reads at most one row through a unique key, or a short window of rows in a key's order: cheap at any size,
   * so it may run without a worker.
   */
  pointLookup?: boolean;
  /**
   * Writes the answer's JSON (src/query/json-records.ts): its run does what reading its rows would cost the
   * serving thread in JavaScript afterwards, so it may take twice a statement's time there before it is stopped.
   */
  writesAnswer?: boolean;
}

export type SqlRow = Record<string, unknown>;

/**
 * What one request may spend on the database: every statement it runs (a page and its count, a node and its
 * links) shares one deadline, so that the time limit bounds the request, not each of its statements.
 */
export interface QueryBudget {
  /** When the request's time is up (milliseconds, as Date.now()). */
  readonly deadline: number;
  /**
   * The statements are the client's own (a posted QueryBuilder query): they run in the heavy lane, which never
   * takes every connection, so that the API's ordinary requests keep answering beside them.
   */
  readonly heavy?: boolean;
  /**
   * Who asks (the client's address): clients take turns in the heavy lane, so that one client's many queries
   * do not hold up another's one.
   */
  readonly client?: string;
  /**
   * A statement expected to be quick may run in the serving thread before it would wait in its lane (default
   * true). Set false where requests crowd: the lanes take clients in turns, the thread in arrival order.
   */
  readonly inThread?: boolean;
  /**
   * On a source with read replicas, the statements go to one server chosen the same way every time (the
   * primary, or with replicas only the first replica up) rather than in turn: reads that must agree with what
   * other requests read (an OPTIMADE side table, built once and read by every request).
   */
  readonly steady?: boolean;
}

export interface Database {
  readonly dialect: Dialect;
  all(statement: SqlStatement, budget?: QueryBudget): Promise<SqlRow[]>;
  /** The rows as arrays of their column values, in the statement's order: no object per row to build. */
  values(statement: SqlStatement, budget?: QueryBudget): Promise<unknown[][]>;
  /**
   * For a live database: a token that changes when its data can have changed, from the server that runs the
   * statements of the request the budget belongs to.
   */
  dataVersion?(budget?: QueryBudget): Promise<string>;
  close(): Promise<void>;
}

export interface RepositoryObject {
  /** Size in bytes of the (uncompressed) object. */
  size: number;
  stream(): Promise<Readable>;
}

export interface Repository {
  /** Look an object up by its hash key; `undefined` when the repository does not hold it. */
  get(key: string): Promise<RepositoryObject | undefined>;
  close(): Promise<void>;
}

export interface StorageBackend {
  /** A short name for logs and `?profile=` selection. */
  readonly name: string;
  readonly kind: 'archive' | 'sqlite-profile' | 'postgres-profile';
  /** The AiiDA version recorded with the data (archive metadata or profile database). */
  readonly aiidaVersion: string;
  /** An archive's export version as its metadata.json says (a legacy archive's is the original, e.g. 0.13). */
  readonly exportVersion?: string;
  /** An archive's file on this machine (an AiiDA 2.x zip), for downloads of it whole. */
  readonly file?: string;
  readonly db: Database;
  readonly repository: Repository;
  /**
   * What the data is, for storages that never change (an archive): the same wherever the same file is served,
   * so that HTTP validators derived from it hold across restarts, processes and machines. Live storages have
   * none; their `dataVersion` says when they changed.
   */
  readonly identity?: string;
  /**
   * For live databases: a token that changes whenever the nodes change, so that summaries computed from them
   * are recomputed. Archives never change and have none.
   */
  dataVersion?(): Promise<string>;
  /** The cache folder of this source: where Quarry keeps what it derives from the data (never the data itself). */
  readonly cacheDir?: string;
  /** Where a live database's summaries outlast a restart of Quarry (none: computed again at each start). */
  readonly summaryFiles?: SummaryFiles;
  /** A whole-database summary computed when the storage was prepared (an archive's copy has them), as JSON. */
  keptSummary?(name: KeptSummaryName): Promise<string | undefined>;
  /**
   * The table of the nodes' (node_type, ctime, id) in the order of a page of one type by -ctime, which an
   * archive's copy has (archive/type-order.ts): such a page reads it instead of sorting all the nodes of the type.
   */
  readonly nodeTypeOrder?: string;
  /**
   * Whether the storage can answer now, and the state of each database server behind it (for `/readyz` and
   * `/metrics`). A storage without it is ready while it is open (an archive, a SQLite file).
   */
  health?(): Promise<SourceHealth>;
  /**
   * For data that lives elsewhere (an archive at a URL): whether it is still what was opened. 'replaced' means
   * the storage should be opened anew; rejects (503) while that cannot be known. Cheap unless due.
   */
  revalidate?(): Promise<'current' | 'replaced'>;
  /** Whether revalidate() would ask its origin now (its interval passed, or a change was seen). */
  revalidationDue?(): boolean;
  close(): Promise<void>;
}

/** One database server behind a source: a PostgreSQL primary or one of its read replicas. */
export interface ServerState {
  /** `host:port/database`, never a password. */
  server: string;
  role: 'primary' | 'replica';
  /** Taking reads now; false while it is out after a failure and tried again in the background. */
  up: boolean;
  /** Why it is out, when it is. */
  problem?: string;
  /** Its pool: sessions open, idle, and queries waiting for one. */
  sessions: { total: number; idle: number; waiting: number };
}

export interface SourceHealth {
  ready: boolean;
  /** When not ready: what is wrong, in a sentence for an operator. */
  message?: string;
  servers?: ServerState[];
}

/** Summaries a storage may keep: the name of the function of storage/aggregates.ts whose result it is. */
export type KeptSummaryName = 'creationStatistics' | 'typeCounts';

/** How a storage runs its queries; every field has a default. */
export interface QuerySettings {
  /** Query processes (SQLite) or most sessions (PostgreSQL). */
  workers?: number;
  /** Time limit of a request's queries, in milliseconds (default 30 s). */
  queryTimeoutMs?: number;
  /** Ordinary queries that may wait for a connection before more are refused with 503 (default 256). */
  maxWaiting?: number;
  /** Most memory one SQLite query may use, in MB (default 1024). */
  queryMemoryMb?: number;
  /** Query processes shared by every SQLite source of the serving process, instead of each source's own. */
  sharedProcesses?: SharedQueryProcesses;
}

/** Raised when a storage cannot be opened; its message is one line that says what to do. */
export class StorageOpenError extends Error {
  override name = 'StorageOpenError';
}

/** A query stopped at the time limit: the server is fine, this one request was too heavy. */
export class QueryTimeoutError extends Error {
  readonly status = 503;
  override name = 'QueryTimeoutError';

  /** A request's queries stopped at the storage's time limit (`limitMs`), in the words every storage uses. */
  static atLimit(limitMs: number): QueryTimeoutError {
    return new QueryTimeoutError(
      `the request's queries ran longer than the time limit of ${limitMs / 1000} s and were stopped; ` +
        'narrow the request with filters or a smaller limit',
    );
  }
}

/**
 * A query ended without an answer other than by the time limit: it needed more memory than the server allows
 * a query, or the process running it died. The server is fine; this one query was too heavy.
 */
export class QueryStoppedError extends Error {
  readonly status = 503;
  override name = 'QueryStoppedError';
}

/**
 * Too many queries wait already: the request is refused at once (503 with Retry-After) instead of joining a
 * queue whose wait would only grow.
 */
export class ServerBusyError extends Error {
  readonly status = 503;
  override name = 'ServerBusyError';
  constructor(
    message: string,
    /** Seconds after which a retry is likely to be admitted. */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** The database cannot be reached now (stopped, restarting, network): answered 503 until it is back. */
export class DatabaseUnavailableError extends Error {
  readonly status = 503;
  override name = 'DatabaseUnavailableError';
}

/** The database refused a value of the request (a malformed UUID, a number that is not one): the client's to fix. */
export class QueryDataError extends Error {
  readonly status = 400;
  override name = 'QueryDataError';
}

/** A stored object whose bytes do not give back what was recorded (a truncated or damaged pack or zip entry). */
export class CorruptObjectError extends Error {
  /** The HTTP layer answers 502: the request was fine, the data behind it is not. */
  readonly status = 502;
  override name = 'CorruptObjectError';
}
