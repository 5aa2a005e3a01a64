/**
 * What every query process has, whether one source's own (query-process.ts) or shared by a portal's sources
 * (shared-query-processes.ts): the child it runs in, the one answer it waits for, and how it is stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { HTTP_DATE_EXTENSION, MEMORY_TRIM_EXTENSION } from './sqlite-extensions.js';

export interface QueryAnswer {
  rows?: unknown[];
  /** The rows as JSON text, as query processes send them (parsed into `rows` on arrival). */
  json?: string;
  ms?: number;
  error?: string;
  /** The process ended while running the statement (a crash, its memory exhausted). */
  died?: boolean;
}

const PAGE_BYTES = 4096;
/** How long a query process waits quiet before it gives freed memory back, and how often it looks. */
const QUIET_MS = 5_000;

/**
 * How much of a file that never changes (an archive's extracted copy) SQLite reads through a memory map (its
 * largest, 2 GB less 64 kB): pages the connection never read come from the system's page cache without a
 * read call and a copy each, as every process reading the file shares them. A page of nodes of a type nobody
 * asked before read 3 to 4 times faster at 10^5 nodes (0.7 ms instead of 2.5), and repeated statements at
 * 10^6 twice as fast (their pages outgrow SQLite's own cache). Never for a live database: another process
 * truncating the file (a VACUUM) under a map would end the reading process.
 */
export const MMAP_BYTES = 0x7fff0000;

/**
 * What every query process's program (CommonJS, run with `node -e`, so that it needs no file of its own beside
 * the compiled code and runs the same under the test runner) starts with:
 * - a thread of its own ends it when the serving process that started it is gone: the main thread may be
 *   inside a statement for minutes and would not notice the closed channel;
 * - `openReadOnly` opens a database with the settings every query process uses; its temporary storage (sorts,
 *   temporary b-trees) is kept in memory, where the parent's memory bound sees it, instead of in files that
 *   could fill a disk; a file that never changes is read through a memory map (MMAP_BYTES);
 * - `answer` runs one statement of the database `entry()` gives (`{ db, statements }`, its prepared statements,
 *   at most `most` kept) and sends the rows, or the error, back.
 *
 * Rows travel as one JSON text that SQLite writes (`rowsAsText`: the statement wrapped in
 * `SELECT json_group_array(json_array(…)) FROM (…)`), parsed once in the serving process. Made into JavaScript
 * values here and written as JSON by the channel, the explorer's grid of 1,826 rows cost 2.3 ms in this process
 * instead of 1.1 ms, and its message took longer to cross. SQLite keeps the subquery's ORDER BY under an
 * aggregate other than count/min/max, so the rows keep their order. It writes the values JSON.parse reads
 * back: numbers that round-trip, text as text (JSON made inside the statement does not keep its JSON subtype
 * through the subquery). Statements whose rows cannot be written so (bytes, columns of the same name, more
 * columns than a function takes) send their rows as values.
 */
export const CHILD_PRELUDE = `
const { Worker } = require('node:worker_threads');
new Worker('const p = process.ppid; setInterval(() => { if (process.ppid !== p) process.kill(process.pid, "SIGKILL"); }, 500);', { eval: true }).unref();
process.on('disconnect', () => process.exit(0));
function openReadOnly(Database, file, unchanging) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma('case_sensitive_like = ON');
  db.pragma('temp_store = MEMORY');
  if (unchanging) {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('mmap_size = ${MMAP_BYTES}');
  }
  // For records SQLite writes as JSON (src/storage/sqlite-extensions.ts); a statement that needs it and finds
  // it missing fails, and its query is answered from its rows.
  const httpDate = ${JSON.stringify(HTTP_DATE_EXTENSION ?? null)};
  if (httpDate) try { db.loadExtension(httpDate); } catch {}
  return db;
}
// The heap memory its statements freed goes back to the system once the process has been quiet a while
// (native/memory-trim.c): otherwise a query process kept 70 MB after a load, where it idles at 25.
const trimFile = ${JSON.stringify(MEMORY_TRIM_EXTENSION ?? null)};
let lastAnswer = 0;
let trimmed = true;
function trimWhenQuiet(Database) {
  if (!trimFile) return;
  let trim;
  try {
    const db = new Database(':memory:');
    db.loadExtension(trimFile);
    trim = db.prepare('SELECT quarry_trim()');
  } catch {
    return;
  }
  setInterval(() => {
    if (trimmed || Date.now() - lastAnswer < ${QUIET_MS}) return;
    trimmed = true;
    // The buffers of answers sent are freed by a collection first (the process runs with --expose-gc).
    if (typeof gc === 'function') gc();
    trim.get();
  }, ${QUIET_MS}).unref();
}
function errorText(error) {
  return String(error && error.message ? error.message : error);
}
function answer(entry, most, sql, params, arrays) {
  trimmed = false;
  try {
    const { db, statements } = entry();
    let kept = statements.get(sql);
    if (!kept) {
      kept = { statement: db.prepare(sql), text: {} };
      if (statements.size > most) statements.clear();
      statements.set(sql, kept);
    }
    const start = performance.now();
    const text = rowsAsText(db, kept, sql, arrays);
    if (text) {
      try {
        process.send({ json: text.get(...params), ms: performance.now() - start });
        return;
      } catch (error) {
        // Bytes, or a text past SQLite's or JavaScript's longest string: the rows are sent as values.
        if (!/BLOB|too big|string length/i.test(errorText(error))) throw error;
        kept.text[arrays ? 'a' : 'o'] = null;
      }
    }
    const rows = kept.statement.raw(arrays).all(...params);
    process.send({ rows, ms: performance.now() - start });
  } catch (error) {
    process.send({ error: errorText(error) });
  } finally {
    lastAnswer = Date.now();
  }
}
function rowsAsText(db, kept, sql, arrays) {
  const which = arrays ? 'a' : 'o';
  if (kept.text[which] !== undefined) return kept.text[which];
  let text = null;
  try {
    const names = kept.statement.reader ? kept.statement.columns().map((c) => c.name) : [];
    if (names.length > 0 && new Set(names).size === names.length) {
      const column = (n) => '"' + n.replace(/"/g, '""') + '"';
      const key = (n) => "'" + n.replace(/'/g, "''") + "'";
      const row = arrays
        ? 'json_array(' + names.map(column).join(',') + ')'
        : 'json_object(' + names.map((n) => key(n) + ',' + column(n)).join(',') + ')';
      text = db.prepare('SELECT json_group_array(' + row + ') FROM (\\n' + sql + '\\n)').pluck();
    }
  } catch {
    text = null;
  }
  return (kept.text[which] = text);
}
`;

export abstract class QueryChild {
  protected pending?: (answer: QueryAnswer) => void;
  protected ended = false;
  /** Once the process is gone (and has let go of its database files and their locks). */
  private readonly exited: Promise<void>;

  protected constructor(protected readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.on('message', (m: QueryAnswer & { ready?: boolean }) => {
      if (m.ready) return;
      if (m.json !== undefined) {
        try {
          m.rows = JSON.parse(m.json) as unknown[];
        } catch (error) {
          // Never expected (SQLite wrote the text); a query's error, not the serving process's end.
          m.error = `the query process sent rows that could not be read (${(error as Error).message})`;
        }
      }
      const pending = this.pending;
      this.pending = undefined;
      pending?.(m);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Send one statement; its answer comes back once, to `done`. */
  protected send(message: object, done: (answer: QueryAnswer) => void) {
    this.pending = done;
    // A process with work keeps the serving process alive, like any pending I/O; an idle one does not.
    this.child.ref();
    (this.child.channel as { ref?: () => void } | undefined)?.ref?.();
    // A process that could not be started (out of open files, say) has no channel: its 'error' answers.
    if (this.child.pid === undefined || typeof this.child.send !== 'function') return;
    this.child.send(message);
  }

  /** After an answer: idle again. */
  idle() {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  /**
   * Resident memory of the process's own (not the file pages it maps, which the system can drop and every
   * process mapping the same file shares), in bytes (Linux); undefined where it cannot be read.
   */
  residentBytes(): number | undefined {
    try {
      const fields = readFileSync(`/proc/${this.child.pid}/statm`, 'latin1').split(' ');
      const pages = Number(fields[1]) - Number(fields[2]);
      return pages * PAGE_BYTES;
    } catch {
      return undefined;
    }
  }

  /** Stop the process at once, whatever it is doing; resolves once it is gone. */
  kill(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.pending = undefined;
      this.child.removeAllListeners('message');
      // Held until its exit is seen: an unreferenced child lets a caller awaiting close() fall off the loop.
      this.child.ref();
      this.child.kill('SIGKILL');
    }
    return this.child.exitCode !== null || this.child.signalCode !== null ? Promise.resolve() : this.exited;
  }
}
