/**
 * Query processes shared by every SQLite source of a serving process (a portal's hundreds of archives): a
 * fixed number of them, each keeping a few databases open (least recently used closed first), instead of
 * processes of each source's own. What grows with the number of sources is then nothing but files on disk.
 *
 * A process runs one statement at a time, like a source's own (src/storage/query-process.ts says why a
 * process); which of its queries may run when is still each source's admission's. A statement stopped at its
 * time limit or memory bound ends its process, which is replaced; the others go on.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { CHILD_PRELUDE, QueryChild, type QueryAnswer } from './query-child.js';
import { ServerBusyError } from './types.js';

/**
 * The child's program: the prelude every query process has (query-child.ts); each statement names its
 * database file, which the process opens on first use and keeps open, at most `keep` of them.
 */
const SOURCE = `
const [driver, keepText] = process.argv.slice(1);
const keep = Number(keepText);
${CHILD_PRELUDE}
const Database = require(driver);
trimWhenQuiet(Database);
const open = new Map();
function database(file, unchanging) {
  let entry = open.get(file);
  if (entry) {
    open.delete(file);
    open.set(file, entry);
    return entry;
  }
  entry = { db: openReadOnly(Database, file, unchanging), statements: new Map() };
  open.set(file, entry);
  while (open.size > keep) {
    const [oldest, old] = open.entries().next().value;
    open.delete(oldest);
    try { old.db.close(); } catch {}
  }
  return entry;
}
process.on('message', (m) => {
  if (m.forget !== undefined) {
    const entry = open.get(m.forget);
    open.delete(m.forget);
    try { entry && entry.db.close(); } catch {}
    return;
  }
  answer(() => database(m.file, m.unchanging), 200, m.sql, m.params, m.arrays);
});
process.send({ ready: true });
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** One shared query process. */
export class SharedQueryProcess extends QueryChild {
  constructor(
    /** Its place among the shared processes. */
    readonly slot: number,
    keep: number,
    heapMb: number,
    onExit: () => void,
  ) {
    super(
      spawn(
        process.execPath,
        [
          `--max-old-space-size=${heapMb}`,
          '--max-semi-space-size=1',
          '--expose-gc',
          '-e',
          SOURCE,
          DRIVER,
          String(keep),
        ],
        { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced' },
      ),
    );
    this.child.on('error', (error) => {
      // Not started at all (no 'exit' follows): its statement is answered with why, and its place freed.
      if (this.child.pid !== undefined || this.ended) return;
      this.ended = true;
      this.pending?.({ error: `the query process could not be started (${error.message})` });
      this.pending = undefined;
    });
    this.child.on('exit', (code, signal) => {
      if (this.ended) return;
      this.ended = true;
      this.pending?.({ error: `the query process ended (${signal ?? `exit code ${code}`})`, died: true });
      this.pending = undefined;
      onExit();
    });
    this.idle();
  }

  run(
    file: string,
    unchanging: boolean,
    sql: string,
    params: unknown[],
    arrays: boolean,
    done: (answer: QueryAnswer) => void,
  ) {
    this.send({ file, unchanging, sql, params, arrays }, done);
  }

  /** Ended, or never started: its place gets a new process. */
  get gone(): boolean {
    return this.ended;
  }

  /** Close `file` if this process has it open (its source was closed). */
  forget(file: string) {
    if (!this.ended && this.child.connected) this.child.send({ forget: file });
  }
}

export interface SharedProcessesOptions {
  /** Processes in all (default 2). */
  size?: number;
  /** Databases each keeps open (default 8). */
  keep?: number;
  /** Largest JavaScript heap of a process, in MB (default 1024). */
  heapMb?: number;
  /** Statements of all sources that may wait for a process before more are refused (default 512). */
  maxWaiting?: number;
}

interface Waiter {
  resolve: (worker: SharedQueryProcess) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** The fixed set of shared processes; each is started at its first use. */
export class SharedQueryProcesses {
  private readonly slots: (SharedQueryProcess | undefined)[];
  private readonly busy = new Set<number>();
  private readonly waiting: Waiter[] = [];
  private readonly keep: number;
  private readonly heapMb: number;
  private readonly maxWaiting: number;
  private closed = false;

  constructor(options: SharedProcessesOptions = {}) {
    this.slots = new Array<SharedQueryProcess | undefined>(Math.max(1, options.size ?? 2)).fill(undefined);
    this.keep = Math.max(1, options.keep ?? 8);
    this.heapMb = options.heapMb ?? 1024;
    this.maxWaiting = options.maxWaiting ?? 512;
  }

  get size(): number {
    return this.slots.length;
  }

  /** The process ids of the processes started (for tests and the benchmark). */
  get processIds(): number[] {
    return this.slots.map((s) => s?.pid).filter((p): p is number => p !== undefined);
  }

  /** An idle process, started if needed; waits for one until `deadline` (then the query's time is up). */
  acquire(deadline: number, onTimeout: () => Error): Promise<SharedQueryProcess> {
    if (this.closed) return Promise.reject(new Error('the query processes are stopped'));
    const free = this.slots.findIndex((_, i) => !this.busy.has(i));
    if (free !== -1) return Promise.resolve(this.take(free));
    if (this.waiting.length >= this.maxWaiting) {
      return Promise.reject(
        new ServerBusyError('too many queries are waiting for a query process; try again shortly', 1),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(
          () => {
            const at = this.waiting.indexOf(waiter);
            if (at !== -1) this.waiting.splice(at, 1);
            reject(onTimeout());
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  private take(index: number): SharedQueryProcess {
    this.busy.add(index);
    return (this.slots[index] ??= this.start(index));
  }

  private start(index: number): SharedQueryProcess {
    const started: SharedQueryProcess = new SharedQueryProcess(index, this.keep, this.heapMb, () => {
      // Ended by itself (out of memory, a crash): the next use starts another.
      if (this.slots[index] === started) this.slots[index] = undefined;
    });
    return started;
  }

  /** The query is done: the process goes to the next waiting query, or idles. */
  release(worker: SharedQueryProcess) {
    // By its place, not by looking it up: one that ended during its query is no longer there, and its place
    // must still be handed on (else it stays busy for good).
    const index = worker.slot;
    if (!this.busy.has(index)) return;
    if (this.slots[index] === worker) {
      if (worker.gone) this.slots[index] = undefined;
      else worker.idle();
    }
    this.handOn(index);
  }

  /** The query was stopped (time, memory): its process is killed, a new one takes its place. */
  discard(worker: SharedQueryProcess) {
    const index = worker.slot;
    void worker.kill();
    if (!this.busy.has(index)) return;
    if (this.slots[index] === worker) this.slots[index] = undefined;
    this.handOn(index);
  }

  private handOn(index: number) {
    const next = this.waiting.shift();
    if (next === undefined || this.closed) {
      this.busy.delete(index);
      return;
    }
    clearTimeout(next.timer);
    next.resolve((this.slots[index] ??= this.start(index)));
  }

  /** A source closed: no process keeps its database open. */
  forget(file: string) {
    for (const worker of this.slots) worker?.forget(file);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('the query processes are stopped'));
    }
    await Promise.all(this.slots.map((s) => s?.kill()));
  }
}
