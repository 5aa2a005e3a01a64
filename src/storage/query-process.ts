/**
 * A child process that runs SQLite statements on a read-only connection. A process, not a worker thread: a
 * SQLite statement cannot be interrupted from JavaScript (better-sqlite3 exposes neither sqlite3_interrupt nor
 * a progress handler), and a terminated worker thread goes on running it, at full CPU and growing memory,
 * inside the serving process. A process is killed with SIGKILL, and the system takes back all it held.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { QueryChild, type QueryAnswer } from './query-child.js';

export type { QueryAnswer };

/**
 * The child's program (CommonJS, run with `node -e`, so that it needs no file of its own beside the compiled
 * code and runs the same under the test runner). Its temporary storage (sorts, temporary b-trees) is kept in
 * memory, where the parent's memory bound sees it, instead of in files that could fill a disk. A thread of its
 * own ends it when the serving process that started it is gone: the main thread may be inside a statement
 * for minutes and would not notice the closed channel.
 */
const SOURCE = `
const [driver, file, unchanging] = process.argv.slice(1);
const { Worker } = require('node:worker_threads');
new Worker('const p = process.ppid; setInterval(() => { if (process.ppid !== p) process.kill(process.pid, "SIGKILL"); }, 500);', { eval: true }).unref();
process.on('disconnect', () => process.exit(0));
let db;
try {
  const Database = require(driver);
  db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma('case_sensitive_like = ON');
  db.pragma('temp_store = MEMORY');
  if (unchanging === '1') db.pragma('locking_mode = EXCLUSIVE');
  // Fail at start, not at the first request, when the file is not an AiiDA database (one row read).
  db.prepare('SELECT id FROM db_dbnode LIMIT 1').get();
} catch (error) {
  db = undefined;
  process.send({ error: String(error && error.message ? error.message : error) }, () => process.exit(1));
}
const statements = new Map();
if (db) process.on('message', ({ sql, params, arrays }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size > 1000) statements.clear();
      statements.set(sql, statement);
    }
    const start = performance.now();
    const rows = statement.raw(arrays).all(...params);
    process.send({ rows, ms: performance.now() - start });
  } catch (error) {
    process.send({ error: String(error && error.message ? error.message : error) });
  }
});
if (db) process.send({ ready: true });
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

export interface QueryProcessOptions {
  file: string;
  unchanging: boolean;
  /** Largest JavaScript heap of the process, in MB: rows collected past it end the process. */
  heapMb: number;
}

export class QueryProcess extends QueryChild {
  /** Until the process has opened its database: its failure to do so, or nothing. */
  readonly ready: Promise<void>;

  constructor(
    options: QueryProcessOptions,
    /** Called once if the process ends by itself (a crash, out of memory), not when it is killed. */
    private readonly onExit: (description: string) => void,
  ) {
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${options.heapMb}`,
        '--max-semi-space-size=1',
        '-e',
        SOURCE,
        DRIVER,
        options.file,
        options.unchanging ? '1' : '0',
      ],
      // JSON is the cheaper of the two serialisations here: rows are arrays of strings, numbers and nulls.
      // Command-line options win over NODE_OPTIONS, which the child inherits as set for serving processes.
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' },
    );
    super(child);
    let stderr = '';
    this.child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('message', (m: QueryAnswer & { ready?: boolean }) =>
        m.ready ? resolve() : reject(new Error(m.error ?? 'the query process did not start')),
      );
      this.child.once('error', reject);
      this.child.once('exit', () =>
        reject(new Error(lastLine(stderr) || 'the query process ended at start')),
      );
    });
    this.ready.catch(() => undefined);
    this.child.on('exit', (code, signal) => {
      if (this.ended) return;
      this.ended = true;
      const why = signal ? `ended by ${signal}` : `exited with status ${code}`;
      const detail = lastLine(stderr);
      this.onExit(detail ? `${why}: ${detail}` : why);
      this.pending?.({ error: `the query process ${why}`, died: true });
      this.pending = undefined;
    });
    this.idle();
  }

  /** Run one statement; the answer comes back once. */
  run(sql: string, params: unknown[], arrays: boolean, done: (answer: QueryAnswer) => void) {
    this.send({ sql, params, arrays }, done);
  }
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .pop()
      ?.trim() ?? ''
  );
}
