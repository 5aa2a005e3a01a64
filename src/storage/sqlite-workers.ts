/**
 * A read-only SQLite database served by a pool of worker threads: queries use every core, the event loop
 * stays free while they run, and a query over the time limit is answered with an error at once. SQLite
 * cannot be interrupted from outside (better-sqlite3 has no interrupt), so the worker running it is
 * terminated and replaced; the other workers go on answering.
 */
import { createRequire } from 'node:module';
import BetterSqlite3 from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { KeptMap } from '../util/kept-map.js';
import {
  QueryTimeoutError,
  StorageOpenError,
  type Database,
  type SqlRow,
  type SqlStatement,
} from './types.js';

/** Raised when a query runs past the time limit; the HTTP layer answers 503 with its message. */
export { QueryTimeoutError };

export interface PoolOptions {
  /** Worker threads (default: 2). */
  size?: number;
  /** Time limit of one query in milliseconds (default: 30 s). */
  timeoutMs?: number;
  /**
   * The file never changes while served (an archive's extracted copy, Quarry's own): each connection keeps
   * its shared lock and page cache instead of checking the file at every statement (half the time of a
   * point lookup). Never for a live database, whose writers the held lock would block.
   */
  unchanging?: boolean;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('case_sensitive_like = ON');
if (workerData.unchanging) db.pragma('locking_mode = EXCLUSIVE');
// Fail at start, not at the first request, when the file is not an AiiDA database (one row read, not a count,
// which read the whole node table's index at every start).
db.prepare('SELECT id FROM db_dbnode LIMIT 1').get();
const statements = new Map();
parentPort.on('message', ({ sql, params, arrays }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size > 1000) statements.clear();
      statements.set(sql, statement);
    }
    const start = performance.now();
    const rows = statement.raw(arrays).all(...params);
    parentPort.postMessage({ rows, ms: performance.now() - start });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});
parentPort.postMessage({ ready: true });
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

interface Task {
  statement: SqlStatement;
  arrays: boolean;
  resolve: (rows: unknown[]) => void;
  reject: (error: Error) => void;
  /** Set when the statement's run time is worth remembering (an unchanging database). */
  measuredAs?: string;
}

/**
 * A statement that took less than this in a worker runs inline from then on. On an unchanging database the
 * same SQL with the same values does the same work every time, so it cannot turn slow; its worker round
 * trip (two thread wake-ups, rows copied between threads) costs more than the query.
 */
const INLINE_MS = 1;
const MEASURED_KEPT = 20_000;

class Slot {
  worker: Worker;
  task?: Task;
  timer?: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly unchanging: boolean,
  ) {
    this.worker = this.spawn();
  }

  spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver: DRIVER, unchanging: this.unchanging },
    });
    worker.unref();
    return worker;
  }
}

export class SqliteWorkerPool implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;
  private readonly timeoutMs: number;
  private readonly unchanging: boolean;
  /** The connection point lookups run on, in this thread: their worker round trip costs more than they do. */
  private inline?: InlineConnection;
  /** Statements (SQL and values) of an unchanging database, by whether their last run was quick. */
  private readonly quick = new KeptMap<boolean>(MEASURED_KEPT);
  private readonly sqlNames = new Map<string, number>();
  private nextSqlName = 0;

  private constructor(
    /** The database file, for tools that measure it directly (the benchmark's data floor). */
    readonly file: string,
    options: PoolOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.unchanging = options.unchanging ?? false;
    for (let i = 0; i < (options.size ?? 2); i++)
      this.slots.push(this.attach(new Slot(file, options.unchanging ?? false)));
  }

  /** Open the pool and wait until every worker has opened the database. */
  static async open(file: string, options: PoolOptions = {}): Promise<SqliteWorkerPool> {
    const pool = new SqliteWorkerPool(file, options);
    try {
      await Promise.all(pool.slots.map((slot) => pool.ready(slot.worker)));
    } catch (error) {
      await pool.close();
      throw new StorageOpenError(`${file} is not a readable AiiDA database (${(error as Error).message})`);
    }
    return pool;
  }

  private ready(worker: Worker): Promise<void> {
    // Referenced while starting: with only unreferenced workers to wait for, a caller awaiting open() (a
    // script, `quarry inspect`) would see the process exit silently with status 0.
    worker.ref();
    return new Promise((resolve, reject) => {
      const onMessage = (m: { ready?: boolean }) => m.ready && (cleanup(), resolve());
      const onError = (e: Error) => (cleanup(), reject(e));
      const cleanup = () => {
        worker.unref();
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
  }

  private attach(slot: Slot): Slot {
    slot.worker.on('message', (m: { rows?: unknown[]; ms?: number; error?: string; ready?: boolean }) => {
      if (m.ready) return;
      const task = slot.task;
      this.release(slot);
      if (!task) return;
      if (m.error !== undefined) return task.reject(new Error(m.error));
      if (task.measuredAs !== undefined && m.ms !== undefined)
        this.quick.set(task.measuredAs, m.ms < INLINE_MS);
      task.resolve(m.rows ?? []);
    });
    slot.worker.on('error', (error) => {
      const task = slot.task;
      this.release(slot);
      task?.reject(error);
    });
    return slot;
  }

  private release(slot: Slot) {
    slot.worker.unref();
    clearTimeout(slot.timer);
    slot.task = undefined;
    slot.timer = undefined;
    this.pump();
  }

  private pump() {
    for (const slot of this.slots) {
      if (slot.task || this.queue.length === 0) continue;
      const task = this.queue.shift() as Task;
      slot.task = task;
      // A worker with work keeps the process alive, like any pending I/O; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({
        sql: task.statement.sql,
        params: task.statement.params,
        arrays: task.arrays,
      });
      slot.timer = setTimeout(() => this.expire(slot), this.timeoutMs);
    }
  }

  /** The query ran too long: answer now, and replace the worker that is still busy with it. */
  private expire(slot: Slot) {
    const task = slot.task;
    slot.task = undefined;
    const old = slot.worker;
    old.removeAllListeners();
    void old.terminate();
    slot.worker = slot.spawn();
    this.attach(slot);
    task?.reject(
      new QueryTimeoutError(
        `the query ran longer than the limit of ${this.timeoutMs / 1000} s and was stopped; ` +
          'narrow it with filters or a smaller limit',
      ),
    );
    this.pump();
  }

  all(statement: SqlStatement): Promise<SqlRow[]> {
    return this.run(statement, false) as Promise<SqlRow[]>;
  }

  values(statement: SqlStatement): Promise<unknown[][]> {
    return this.run(statement, true) as Promise<unknown[][]>;
  }

  private run(statement: SqlStatement, arrays: boolean): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const measuredAs = this.unchanging && !statement.pointLookup ? this.statementKey(statement) : undefined;
    if (statement.pointLookup || (measuredAs !== undefined && this.quick.get(measuredAs) === true)) {
      try {
        this.inline ??= new InlineConnection(this.file, this.unchanging);
        return Promise.resolve(this.inline.all(statement, arrays));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ statement, arrays, resolve, reject, measuredAs });
      this.pump();
    });
  }

  /**
   * The identity of a statement's work: its SQL and the values bound to it. The SQL goes in by a short name:
   * a key made of the whole text (kilobytes for a page of nodes) was copied and hashed at every run.
   */
  private statementKey({ sql, params }: SqlStatement): string {
    let name = this.sqlNames.get(sql);
    if (name === undefined) {
      // Names are never given twice, so forgetting them all only costs the timings kept under them.
      if (this.sqlNames.size >= MEASURED_KEPT) this.sqlNames.clear();
      this.sqlNames.set(sql, (name = this.nextSqlName++));
    }
    return `${name}\u0000${JSON.stringify(params)}`;
  }

  /** Whether `statement` now runs in this thread (for tests and the benchmark's notes). */
  runsInline(statement: SqlStatement): boolean {
    return (
      statement.pointLookup === true ||
      (this.unchanging && this.quick.get(this.statementKey(statement)) === true)
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the database is closed'));
    this.inline?.close();
    await Promise.all(this.slots.map((s) => (clearTimeout(s.timer), s.worker.terminate())));
  }
}

/** A read-only connection in this thread, with the same settings as the workers', for point lookups. */
class InlineConnection {
  private readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(file: string, unchanging: boolean) {
    this.db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    if (unchanging) this.db.pragma('locking_mode = EXCLUSIVE');
    this.db.pragma('case_sensitive_like = ON');
  }

  all({ sql, params }: SqlStatement, arrays: boolean): unknown[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement.raw(arrays).all(...params);
  }

  close() {
    this.db.close();
  }
}
