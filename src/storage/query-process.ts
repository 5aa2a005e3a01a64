/**
 * A child process that runs SQLite statements on a read-only connection. A process, not a worker thread: a
 * SQLite statement cannot be interrupted from JavaScript (better-sqlite3 exposes neither sqlite3_interrupt nor
 * a progress handler), and a terminated worker thread goes on running it, at full CPU and growing memory,
 * inside the serving process. A process is killed with SIGKILL, and the system takes back all it held.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { CHILD_PRELUDE, QueryChild, type QueryAnswer } from './query-child.js';

export type { QueryAnswer };

/**
 * The child's program: the prelude every query process has (query-child.ts), then its one database, opened at
 * start so that a file that is not an AiiDA database fails there, not at the first request (one row read).
 */
const SOURCE = `
const [driver, file, unchanging] = process.argv.slice(1);
${CHILD_PRELUDE}
let own;
try {
  const db = openReadOnly(require(driver), file, unchanging === '1');
  db.prepare('SELECT id FROM db_dbnode LIMIT 1').get();
  own = { db, statements: new Map() };
} catch (error) {
  process.send({ error: errorText(error) }, () => process.exit(1));
}
if (own) process.on('message', ({ sql, params, arrays }) => answer(() => own, 1000, sql, params, arrays));
if (own) trimWhenQuiet(require(driver));
if (own) process.send({ ready: true });
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
        '--expose-gc',
        '-e',
        SOURCE,
        DRIVER,
        options.file,
        options.unchanging ? '1' : '0',
      ],
      // Advanced (V8's) serialisation copies the rows' JSON text (query-child.ts) as it is; the JSON one
      // escaped every quote in it, and the serving process read it twice.
      // Command-line options win over NODE_OPTIONS, which the child inherits as set for serving processes.
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' },
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
