/**
 * A read-only SQLite database served by a pool of query processes: queries use every core, the event loop
 * stays free while they run, and a query is stopped for real when its request's time is up or when it needs
 * more memory than a query may have: its process is killed and replaced, the other processes go on answering.
 * Which query runs when is the admission's (lanes, waits bounded by time). Statements known or expected to be
 * quick run in this thread first, where a round trip to a process would cost more than they do; those expected
 * are stopped after a few milliseconds (inline-connection.ts) and then run in a process.
 */
import { KeptMap } from '../util/kept-map.js';
import { InlineConnection, InlineStopped } from './inline-connection.js';
import { Admission, type Ticket } from './admission.js';
import { CostEstimates } from './cost-estimates.js';
import { KEEP_MS, KeptRows } from './kept-rows.js';
import type { QueryChild } from './query-child.js';
import { QueryProcess, type QueryAnswer } from './query-process.js';
import type { SharedQueryProcesses } from './shared-query-processes.js';
import { asShortage, atFileLimit, ResourceShortageError } from './shortage.js';
import {
  QueryStoppedError,
  QueryTimeoutError,
  StorageOpenError,
  type Database,
  type QueryBudget,
  type SqlRow,
  type SqlStatement,
} from './types.js';

export { QueryTimeoutError };

export interface PoolOptions {
  /** Query processes (default: 2). */
  size?: number;
  /** Time limit of one statement in milliseconds; a request's own deadline may end it sooner (default 30 s). */
  timeoutMs?: number;
  /**
   * The file never changes while served (an archive's extracted copy, Quarry's own): each connection keeps
   * its shared lock and page cache instead of checking the file at every statement (half the time of a
   * point lookup). Never for a live database, whose writers the held lock would block.
   */
  unchanging?: boolean;
  /** Ordinary queries that may wait for a process before more are refused (default 256). */
  maxWaiting?: number;
  /**
   * How long a statement expected to be quick may run in the serving thread before it is stopped and run in a
   * query process instead, in ms (default INLINE_BUDGET_MS; 0: never, as where the extension was not built).
   */
  inlineBudgetMs?: number;
  /** Most memory one query's process may hold, in MB (default 1024); past it the query is stopped. */
  memoryMb?: number;
  /**
   * Run the statements on these processes, shared with other sources, instead of processes of the pool's own
   * (a portal's many archives: src/storage/shared-query-processes.ts). `size` is then theirs.
   */
  shared?: SharedQueryProcesses;
}

/**
 * A statement that took less than this in a process runs inline from then on. On an unchanging database the
 * same SQL with the same values does the same work every time, so it cannot turn slow.
 */
const INLINE_MS = 1;
/**
 * A statement of a shape never run, or expected to take less than this, runs in this thread first and is
 * stopped at this time (inline-connection.ts); a stopped one runs again in a query process. The serving thread
 * is held at most this long (the watcher looks at the deadline) for a statement that turns out slow, twice as long
 * for one that writes the answer's JSON (SqlStatement.writesAnswer).
 */
const INLINE_BUDGET_MS = 5;
/** Statements run in the serving thread by the budget of any pool of this process, by outcome (for /metrics). */
const inThreadCounts = { answered: 0, stopped: 0 };

/** How many statements every pool of this process ran in the serving thread within their budget, or stopped. */
export function inThreadUse(): Readonly<typeof inThreadCounts> {
  return inThreadCounts;
}
/**
 * A statement whose SQL is expected (from its recent runs, see cost-estimates.ts) to run this long runs in the
 * heavy lane, until quicker runs bring its estimate down again.
 */
const HEAVY_MS = 250;
const MEASURED_KEPT = 20_000;
/** How long to wait before replacing a query process that died while starting. */
const RESTART_PAUSE_MS = 1_000;
/** How often a running query's memory is looked at. */
const MEMORY_CHECK_MS = 100;

interface Slot {
  /** Started at the slot's first query, so that start-up and sources that never need one do not pay for it. */
  process?: QueryProcess;
  busy: boolean;
  /** Its process has opened the database (a replaced one may take half a second on a busy machine). */
  ready?: boolean;
  /** Ends the slot's running query at once (the pool is closing). */
  abort?: (error: Error) => void;
}

export class SqlitePool implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly slots: Slot[] = [];
  private readonly admission: Admission;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly unchanging: boolean;
  private readonly memoryMb: number;
  private readonly inlineBudgetMs: number;
  private readonly shared?: SharedQueryProcesses;
  /** The connection quick statements run on, in this thread. */
  private inline?: InlineConnection;
  /** Statements (SQL and values) of an unchanging database, by whether their last run was quick. */
  private readonly quick = new KeptMap<boolean>(MEASURED_KEPT);
  /** Rows of an unchanging database's costly statements (see kept-rows.ts). */
  private readonly keptRows = new KeptRows();
  /** Expected run times by SQL (by name): the admission's measure of the work ahead, and the lane. */
  private readonly costs = new CostEstimates();
  /** Shapes whose statement was stopped in this thread: true until a process has run one of them since. */
  private readonly stopped = new KeptMap<boolean>(MEASURED_KEPT);
  private readonly sqlNames = new Map<string, string>();
  private nextSqlName = 0;

  private constructor(
    /** The database file, for tools that measure it directly (the benchmark's data floor). */
    readonly file: string,
    options: PoolOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.unchanging = options.unchanging ?? false;
    this.memoryMb = options.memoryMb ?? 1024;
    this.inlineBudgetMs = options.inlineBudgetMs ?? INLINE_BUDGET_MS;
    this.shared = options.shared;
    const size = Math.max(1, options.shared?.size ?? options.size ?? 2);
    this.admission = new Admission({ slots: size, maxWaiting: options.maxWaiting ?? 256 });
    for (let i = 0; i < size; i++) this.slots.push({ busy: false });
  }

  /**
   * Open the pool once the database has been read in this thread. Query processes start when first needed; one
   * that cannot start answers its query with a 503 and is replaced.
   */
  static async open(file: string, options: PoolOptions = {}): Promise<SqlitePool> {
    const pool = new SqlitePool(file, options);
    try {
      // One row read, not a count (which read the whole node table's index at every start).
      pool.inlineConnection().all({ sql: 'SELECT id FROM db_dbnode LIMIT 1', params: [] }, true);
    } catch (error) {
      await pool.close();
      // A full descriptor table is not an unreadable database (SQLite says "unable to open" for both).
      const shortage =
        asShortage(error) ?? (atFileLimit() ? new ResourceShortageError('open files') : undefined);
      if (shortage !== undefined) throw shortage;
      throw new StorageOpenError(`${file} is not a readable AiiDA database (${(error as Error).message})`);
    }
    return pool;
  }

  /** Start every query process and wait until each has opened the database (for tests and the benchmark). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.processOf(slot).ready));
  }

  private processOf(slot: Slot): QueryProcess {
    return (slot.process ??= this.spawn(slot));
  }

  /** Queries running and waiting (for tests and monitoring). */
  get state() {
    return this.admission.state;
  }

  private spawn(slot: Slot): QueryProcess {
    let ready = false;
    const started = new QueryProcess(
      { file: this.file, unchanging: this.unchanging, heapMb: this.memoryMb },
      // A process that died by itself (its query ran out of memory, say) is replaced like a killed one; one
      // that died before it was ready is replaced after a pause, not in a loop as fast as processes start.
      () => {
        const replace = () => {
          if (!this.closed && slot.process === started) slot.process = this.spawn(slot);
        };
        if (ready) replace();
        else setTimeout(replace, RESTART_PAUSE_MS).unref();
      },
    );
    slot.ready = false;
    started.ready
      .then(() => {
        ready = true;
        if (slot.process === started) slot.ready = true;
      })
      .catch(() => undefined);
    return started;
  }

  all(statement: SqlStatement, budget?: QueryBudget): Promise<SqlRow[]> {
    return this.run(statement, false, budget) as Promise<SqlRow[]>;
  }

  values(statement: SqlStatement, budget?: QueryBudget): Promise<unknown[][]> {
    return this.run(statement, true, budget) as Promise<unknown[][]>;
  }

  private run(statement: SqlStatement, arrays: boolean, budget?: QueryBudget): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const posted = budget?.heavy === true;
    // A posted query's statement is not known by its values: the same body asked again is answered from the
    // kept answers, and never-asked bodies filled the map with keys of a kilobyte kept for thousands of requests.
    const measuredAs =
      this.unchanging && !statement.pointLookup && !posted ? this.statementKey(statement) : undefined;
    if (statement.pointLookup || (measuredAs !== undefined && this.quick.get(measuredAs) === true)) {
      try {
        return Promise.resolve(this.inlineConnection().all(statement, arrays));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    // The request's deadline, and never more than the storage's own limit for one statement.
    const deadline = Math.min(budget?.deadline ?? Infinity, Date.now() + this.timeoutMs);
    const name = this.sqlName(statement.sql);
    const keptAs = measuredAs === undefined ? undefined : `${arrays ? 'a' : 'o'}${measuredAs}`;
    const kept = keptAs === undefined ? undefined : this.keptRows.get(keptAs);
    if (kept !== undefined) return Promise.resolve(kept);
    if (budget?.inThread !== false) {
      const inThread = this.tryInline(statement, arrays, { name, posted, measuredAs, deadline });
      if (inThread !== undefined) return inThread;
    }
    const cost = this.costs.estimate(name, posted);
    const ticket: Ticket = { heavy: posted || cost >= HEAVY_MS, posted, cost, client: budget?.client ?? '' };
    const task: Task = { statement, arrays, ticket, deadline, name, measuredAs };
    // A portal's sources share the serving process's query processes; a source served alone has its own.
    const dispatch = this.shared === undefined ? this.dispatch : this.dispatchShared;
    const admitted = () =>
      this.admission.tryEnter(ticket)
        ? dispatch.call(this, task)
        : this.admission.wait(ticket, deadline, this.timeoutMs / 1000).then(() => dispatch.call(this, task));
    if (keptAs === undefined) return admitted();
    return this.keptRows.run(keptAs, admitted, () => !posted && this.costs.estimate(name, posted) >= KEEP_MS);
  }

  /**
   * Run a statement expected to be quick in this thread, stopped at the pool's budget: the rows (or the
   * statement's own error), or undefined when it is not expected to be quick or was stopped.
   */
  private tryInline(
    statement: SqlStatement,
    arrays: boolean,
    { name, posted, measuredAs, deadline }: InlineTask,
  ): Promise<unknown[]> | undefined {
    const budgetMs = statement.writesAnswer === true ? 2 * this.inlineBudgetMs : this.inlineBudgetMs;
    // A request with less time left than the budget runs its statement where the time limit is kept to the ms.
    if (deadline - Date.now() < budgetMs || !this.expectedQuick(name, posted, budgetMs)) return undefined;
    let inline: InlineConnection;
    try {
      inline = this.inlineConnection();
    } catch {
      return undefined;
    }
    if (!inline.canStop) return undefined;
    const started = performance.now();
    try {
      const rows = inline.within(statement, arrays, budgetMs);
      const ms = performance.now() - started;
      inThreadCounts.answered++;
      this.costs.record(name, ms, posted);
      if (measuredAs !== undefined) this.quick.set(measuredAs, ms < INLINE_MS);
      return Promise.resolve(rows);
    } catch (error) {
      if (!(error instanceof InlineStopped)) return Promise.reject(error as Error);
      // Not a measure of its cost (the process's run gives that), but its shape stays out of this thread until then.
      inThreadCounts.stopped++;
      this.stopped.set(name, true);
      return undefined;
    }
  }

  /** The connection of this thread, opened by open() with its first statement. */
  private inlineConnection(): InlineConnection {
    return (this.inline ??= new InlineConnection(this.file, this.unchanging));
  }

  /** Whether a statement of the shape `name` is expected to run within `budgetMs` in this thread. */
  private expectedQuick(name: string, posted: boolean, budgetMs = this.inlineBudgetMs): boolean {
    if (budgetMs <= 0) return false;
    const stopped = this.stopped.get(name);
    if (stopped === true) return false;
    if (stopped === false) {
      // Measured in a process since it was stopped: back in this thread once its runs are well within the budget.
      if (this.costs.estimate(name, posted) >= budgetMs / 2) return false;
      this.stopped.delete(name);
    }
    return !this.costs.knows(name) || this.costs.estimate(name, posted) < budgetMs;
  }

  /** A statement run in a process took `ms`: its shape's estimate, and whether it may run in this thread again. */
  private measured(task: Task, ms: number) {
    this.costs.record(task.name, ms, task.ticket.heavy);
    if (this.stopped.get(task.name) === true) this.stopped.set(task.name, false);
  }

  /** Run an admitted task on an idle process, watching its time and memory. */
  private dispatch(task: Task): Promise<unknown[]> {
    const remaining = task.deadline - Date.now();
    if (remaining <= 0 || this.closed) {
      this.admission.leave(task.ticket);
      return Promise.reject(
        this.closed ? new Error('the database is closed') : QueryTimeoutError.atLimit(this.timeoutMs),
      );
    }
    // The admission lets no more tasks in than there are processes: one is idle.
    // An idle process that is ready goes first: one still starting would make the query wait for it.
    const slot = (this.slots.find((s) => !s.busy && s.ready) ?? this.slots.find((s) => !s.busy)) as Slot;
    slot.busy = true;
    const running = this.processOf(slot);
    return new Promise((resolve, reject) => {
      // A process's start (half a second on a busy machine) is not the statement's cost: the measure counts
      // from when the process is ready.
      let started = performance.now();
      running.ready.then(
        () => (started = Math.max(started, performance.now())),
        () => undefined,
      );
      const finish = () => {
        clearTimeout(timer);
        clearInterval(watch);
        slot.busy = false;
        slot.abort = undefined;
        this.admission.leave(task.ticket);
      };
      const measured = () => this.measured(task, performance.now() - started);
      const stop = (error: Error) => {
        if (!this.closed) measured();
        void running.kill();
        if (slot.process === running && !this.closed) slot.process = this.spawn(slot);
        finish();
        reject(error);
      };
      slot.abort = stop;
      const timer = setTimeout(() => stop(QueryTimeoutError.atLimit(this.timeoutMs)), remaining);
      const watch = this.watchMemory(running, stop);
      running.run(task.statement.sql, task.statement.params, task.arrays, (answer) => {
        finish();
        running.idle();
        measured();
        this.settle(task, answer, resolve, reject);
      });
    });
  }

  /** Run an admitted task on a shared process (one of any source's), watching its time and memory. */
  private async dispatchShared(task: Task): Promise<unknown[]> {
    const shared = this.shared as SharedQueryProcesses;
    let running;
    try {
      running = await shared.acquire(task.deadline, () => QueryTimeoutError.atLimit(this.timeoutMs));
    } catch (error) {
      this.admission.leave(task.ticket);
      throw error;
    }
    if (this.closed) {
      shared.release(running);
      this.admission.leave(task.ticket);
      throw new Error('the database is closed');
    }
    const worker = running;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        clearInterval(watch);
        this.running.delete(stop);
        this.admission.leave(task.ticket);
      };
      const started = performance.now();
      const measured = () => this.measured(task, performance.now() - started);
      const stop = (error: Error) => {
        if (done) return;
        if (!this.closed) measured();
        shared.discard(worker);
        finish();
        reject(error);
      };
      this.running.add(stop);
      const timer = setTimeout(
        () => stop(QueryTimeoutError.atLimit(this.timeoutMs)),
        Math.max(0, task.deadline - Date.now()),
      );
      const watch = this.watchMemory(worker, stop);
      const { sql, params } = task.statement;
      worker.run(this.file, this.unchanging, sql, params, task.arrays, (answer) => {
        if (done) return;
        finish();
        shared.release(worker);
        measured();
        this.settle(task, answer, resolve, reject);
      });
    });
  }

  /** Stop a query (by `stop`) whose process holds more memory than a query may; checked every 100 ms. */
  private watchMemory(process: QueryChild, stop: (error: Error) => void): NodeJS.Timeout {
    const limit = this.memoryMb * 1024 * 1024;
    return setInterval(() => {
      if ((process.residentBytes() ?? 0) > limit) {
        stop(
          new QueryStoppedError(
            `the query needed more than the ${this.memoryMb} MB of memory this server allows a query and was stopped; narrow it with filters or a smaller limit`,
          ),
        );
      }
    }, MEMORY_CHECK_MS);
  }

  /** A query process's answer to the task's promise; what it took says whether it may run inline next time. */
  private settle(
    task: Task,
    answer: QueryAnswer,
    resolve: (rows: unknown[]) => void,
    reject: (error: Error) => void,
  ): void {
    if (answer.error !== undefined) {
      return reject(
        answer.died
          ? new QueryStoppedError(
              `${answer.error} while running this query; it may need more memory than this server allows a query (${this.memoryMb} MB)`,
            )
          : new Error(answer.error),
      );
    }
    if (task.measuredAs !== undefined && answer.ms !== undefined)
      this.quick.set(task.measuredAs, answer.ms < INLINE_MS);
    resolve(answer.rows ?? []);
  }

  /** Queries of this pool running on shared processes: stopped when the pool closes. */
  private readonly running = new Set<(error: Error) => void>();

  /** A short name for a statement's SQL: keys made of the whole text (kilobytes) were copied and hashed. */
  private sqlName(sql: string): string {
    let name = this.sqlNames.get(sql);
    if (name === undefined) {
      // Names are never given twice, so forgetting them all only costs what was learnt under them.
      if (this.sqlNames.size >= MEASURED_KEPT) this.sqlNames.clear();
      this.sqlNames.set(sql, (name = String(this.nextSqlName++)));
    }
    return name;
  }

  /** The identity of a statement's work: its SQL and the values bound to it. */
  private statementKey({ sql, params }: SqlStatement): string {
    return `${this.sqlName(sql)}\u0000${JSON.stringify(params)}`;
  }

  /** Whether `statement` would now run in this thread, first or for good (for tests). */
  runsInline(statement: SqlStatement): boolean {
    return (
      statement.pointLookup === true ||
      (this.unchanging && this.quick.get(this.statementKey(statement)) === true) ||
      (this.inline?.canStop === true && this.expectedQuick(this.sqlName(statement.sql), false))
    );
  }

  /** The time limit of one statement, in ms (for tests and monitoring). */
  get statementLimitMs(): number {
    return this.timeoutMs;
  }

  /** Rows kept of costly statements (for tests). */
  get kept(): { entries: number; bytes: number } {
    return this.keptRows.size;
  }

  /** The processes shared with other sources this pool runs on, if it does (a portal's). */
  get sharedProcesses(): SharedQueryProcesses | undefined {
    return this.shared;
  }

  /** The process ids of the query processes (for tests that watch them). */
  get processIds(): number[] {
    return this.slots.map((s) => s.process?.pid).filter((p): p is number => p !== undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.admission.drain(new Error('the database is closed'));
    this.inline?.close();
    for (const slot of this.slots) slot.abort?.(new Error('the database is closed'));
    for (const stop of [...this.running]) stop(new Error('the database is closed'));
    this.shared?.forget(this.file);
    await Promise.all(this.slots.map((slot) => slot.process?.kill()));
  }
}

/** What tryInline needs to know of a statement besides its SQL. */
type InlineTask = Pick<Task, 'name' | 'measuredAs' | 'deadline'> & { posted: boolean };

interface Task {
  statement: SqlStatement;
  arrays: boolean;
  ticket: Ticket;
  deadline: number;
  name: string;
  /** Set when the statement's run time is worth remembering (an unchanging database). */
  measuredAs?: string;
}
