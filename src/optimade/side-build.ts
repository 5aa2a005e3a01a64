/**
 * How a side table is built into its temporary file. A SQLite source (an archive's copy, a core.sqlite_dos
 * profile) is read by worker threads, one per core up to two, each taking the next range of pks, computing
 * the rows and writing a part file of its own; one of them then joins the parts and builds the indexes. The
 * serving thread only hands out ranges, so it keeps answering while a table of 10^6 structures is built.
 * A PostgreSQL source is read through its own connections, and its rows are computed and written here, a
 * slice at a time between requests; its indexes are built in a worker.
 *
 * The symmetry pass (side-symmetry.ts), after the table is served, reads the source again the same way: in
 * workers by ranges, or here a few structures a turn; either way each group is found by moyo in a thread of
 * its own, within a time budget (symmetry-thread.ts), never in the serving thread.
 *
 * The workers run the compiled code (side-build-worker.js); where there is none beside this module (the
 * test runner runs the TypeScript sources), every step runs in this thread instead, with the same functions.
 */
import { existsSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { SqlitePool } from '../storage/sqlite-pool.js';
import type { StorageBackend } from '../storage/types.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './side-build-worker.js';
import { BATCH, finishTable, openOut, RowWriter, STRUCTURE_TYPE, structuresAfter } from './side-rows.js';
import { withSites } from './cif-rows.js';
import { CIF_TYPE } from './cif-sites.js';
import { finishSymmetry, openSymmetryPart, SymmetryWriter } from './side-symmetry.js';

/** Structures computed and written in the serving thread between two turns of its event loop (about 50 ms). */
const WRITE_SLICE = 1_000;
/** Structures whose symmetry is asked for from the serving thread between two turns (found in a thread). */
const SYMMETRY_SLICE = 25;
/** Ranges per worker: enough that a worker given the denser pks does not finish long after the others. */
const RANGES_PER_WORKER = 16;
const WORKER_FILE = fileURLToPath(new URL('./side-build-worker.js', import.meta.url));

export interface BuildOptions {
  /** Worker threads reading a SQLite source (default: one per core, two at most; 0: none). */
  workers?: number;
  /** Stops the build (the serving process is closing). */
  signal?: AbortSignal;
  /** Pks per range a worker takes (default: the structures' span cut in 16 per worker, BATCH at least). */
  rangePks?: number;
  /** Awaited before the symmetry pass starts (tests hold the pass with it). */
  symmetryGate?: () => Promise<void>;
}

export interface Built {
  count: number;
  skipped: number;
}

/** Builds the side table of `backend` into `temp` (a new file); the caller renames it into place. */
export async function buildInto(
  backend: StorageBackend,
  temp: string,
  version: string,
  options: BuildOptions = {},
): Promise<Built> {
  const compiled = existsSync(WORKER_FILE);
  const workers = compiled ? (options.workers ?? Math.min(2, availableParallelism())) : 0;
  const parts: string[] = [];
  const running: BuildWorker[] = [];
  const stop = () => running.forEach((w) => w.stop(new Error('the build was stopped: Quarry is closing')));
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    options.signal?.throwIfAborted();
    let built: Built;
    if (workers > 0 && backend.db instanceof SqlitePool) {
      const file = backend.db.file;
      const unchanging = backend.identity !== undefined;
      for (let i = 0; i < workers; i++) {
        // Named `.tmp` like the table's temporary file, so that a crash's leftovers are tidied as its are.
        parts.push(`${temp}.part${i}.tmp`);
        running.push(new BuildWorker({ source: file, unchanging, part: parts[i] }));
      }
      built = await inWorkers(backend, running, options.rangePks, () => undefined);
    } else {
      built = await inThisThread(backend, temp, options.signal);
    }
    // CifData nodes, whose files are read from the repository here: a part of their own.
    const cifs = await cifPart(backend, `${temp}.cif.tmp`, options.signal);
    built = { count: built.count + cifs.count, skipped: built.skipped + cifs.skipped };
    parts.push(`${temp}.cif.tmp`);
    // A worker given no range wrote no part.
    const written = parts.filter((p) => existsSync(p));
    const finish = { target: temp, created: running.length === 0, parts: written, version, ...built };
    if (compiled) {
      const finisher = running[0] ?? new BuildWorker({});
      if (running.length === 0) running.push(finisher);
      await finisher.call({ kind: 'finish', ...finish });
    } else {
      const out = openOut(temp, finish.created ? 'none' : 'whole');
      try {
        finishTable(out, written, finish);
      } finally {
        out.close();
      }
    }
    return built;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await Promise.all(running.map((w) => w.end()));
    await Promise.all(parts.map((p) => rm(p, { force: true })));
  }
}

/** The structures' pks cut into ranges, each worker taking the next when it is done with one. */
async function inWorkers(
  backend: StorageBackend,
  workers: BuildWorker[],
  rangePks: number | undefined,
  /** Called with a worker's structures so far after each of its ranges. */
  progress: (worker: number, count: number) => void,
): Promise<Built> {
  const p = backend.db.dialect === 'postgres' ? '$1' : '?';
  const [bounds] = await backend.db.values({
    sql: `SELECT min(id), max(id) FROM db_dbnode WHERE node_type = ${p}`,
    params: [STRUCTURE_TYPE],
  });
  const ranges: { after: number; upTo: number }[] = [];
  if (bounds?.[0] !== null && bounds?.[0] !== undefined) {
    const [low, high] = [Number(bounds[0]) - 1, Number(bounds[1])];
    const width = rangePks ?? Math.max(BATCH, Math.ceil((high - low) / (workers.length * RANGES_PER_WORKER)));
    for (let after = low; after < high; after += width)
      ranges.push({ after, upTo: Math.min(high, after + width) });
  }
  const totals = await Promise.all(
    workers.map(async (worker, i) => {
      for (let range = ranges.shift(); range; range = ranges.shift())
        progress(i, (await worker.call({ kind: 'range', ...range })).count ?? 0);
      return worker.call({ kind: 'end' });
    }),
  );
  return {
    count: totals.reduce((sum, t) => sum + (t.count ?? 0), 0),
    skipped: totals.reduce((sum, t) => sum + (t.skipped ?? 0), 0),
  };
}

/**
 * The symmetry pass (side-symmetry.ts) of the table at `target`, built at `version`: the source read again, in
 * workers where the first pass was, each structure's group written to parts, then into `temp` (a copy of
 * `target`) made complete; the caller renames it into place. `progress`: the structures done so far.
 */
export async function fillSymmetry(
  backend: StorageBackend,
  target: string,
  temp: string,
  version: string,
  progress: (done: number) => void,
  options: BuildOptions = {},
): Promise<void> {
  if (options.symmetryGate) await untilAborted(options.symmetryGate(), options.signal);
  const compiled = existsSync(WORKER_FILE);
  const workers = compiled ? (options.workers ?? Math.min(2, availableParallelism())) : 0;
  const parts: string[] = [];
  const running: BuildWorker[] = [];
  const stop = () => running.forEach((w) => w.stop(new Error('the build was stopped: Quarry is closing')));
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    options.signal?.throwIfAborted();
    const done: number[] = [];
    const report = () => progress(done.reduce((a, b) => a + b, 0));
    if (workers > 0 && backend.db instanceof SqlitePool) {
      const file = backend.db.file;
      const unchanging = backend.identity !== undefined;
      for (let i = 0; i < workers; i++) {
        parts.push(`${temp}.symmetry${i}.tmp`);
        running.push(new BuildWorker({ source: file, unchanging, part: parts[i], pass: 'symmetry' }));
      }
      await inWorkers(backend, running, options.rangePks, (i, count) => {
        done[i] = count;
        report();
      });
    } else {
      parts.push(`${temp}.symmetry.tmp`);
      await symmetryHere(backend, parts[0]!, STRUCTURE_TYPE, options.signal, (count) => {
        done[0] = count;
        report();
      });
    }
    parts.push(`${temp}.symmetry-cif.tmp`);
    await symmetryHere(backend, parts[parts.length - 1]!, CIF_TYPE, options.signal, (count) => {
      done[workers + 1] = count;
      report();
    });
    await copyFile(target, temp);
    const written = parts.filter((p) => existsSync(p));
    // Finished in a thread (its index built there), unless the pass was kept in this one (a small table).
    if (compiled && options.workers !== 0) {
      const finisher = running[0] ?? new BuildWorker({});
      if (running.length === 0) running.push(finisher);
      await finisher.call({ kind: 'finish-symmetry', target: temp, parts: written, version });
    } else {
      const out = new BetterSqlite3(temp);
      try {
        finishSymmetry(out, written, version);
      } finally {
        out.close();
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await Promise.all(running.map((w) => w.end()));
    await Promise.all(parts.map((p) => rm(p, { force: true })));
  }
}

/** `held`, or a rejection once `signal` aborts (a held pass must not keep the server from closing). */
function untilAborted(held: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return held;
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    held.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The symmetry of the nodes of `type`, read through the source's connections and found here, a slice a turn. */
async function symmetryHere(
  backend: StorageBackend,
  part: string,
  type: string,
  signal: AbortSignal | undefined,
  progress: (count: number) => void,
): Promise<void> {
  const out = openSymmetryPart(part);
  try {
    const writer = new SymmetryWriter(out);
    // A pass stopped (the server closing) ends the analysis under way too.
    const stop = () => void writer.close();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      for (let after = -1; ;) {
        const rows = await backend.db.values(structuresAfter(backend.db.dialect, after, undefined, type));
        if (rows.length === 0) break;
        after = Number(rows[rows.length - 1]![0]);
        for (let i = 0; i < rows.length; i += SYMMETRY_SLICE) {
          signal?.throwIfAborted();
          const slice = rows.slice(i, i + SYMMETRY_SLICE);
          // A CifData's sites come from its file; one that cannot be read has no row to fill.
          const read =
            type === CIF_TYPE
              ? (await Promise.all(slice.map((row) => withSites(backend, row)))).filter(
                  (r): r is unknown[] => r !== undefined,
                )
              : slice;
          await writer.add(read);
          signal?.throwIfAborted();
          progress(writer.count);
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (rows.length < BATCH) break;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      await writer.close();
    }
  } finally {
    out.close();
  }
}

/** The rows read through the source's own connections and written here, a slice between requests. */
async function inThisThread(backend: StorageBackend, temp: string, signal?: AbortSignal): Promise<Built> {
  const out = openOut(temp, 'whole');
  try {
    const writer = new RowWriter(out);
    // The next batch is read (in the storage's query process or database) while this one is computed.
    const read = (after: number) => {
      const rows = backend.db.values(structuresAfter(backend.db.dialect, after));
      // Awaited at the next turn; until then a failure must not count as unhandled.
      rows.catch(() => undefined);
      return rows;
    };
    let next = read(-1);
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      next = rows.length < BATCH ? Promise.resolve([]) : read(Number(rows[rows.length - 1]![0]));
      for (let i = 0; i < rows.length; i += WRITE_SLICE) {
        signal?.throwIfAborted();
        writer.add(rows.slice(i, i + WRITE_SLICE));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { count: writer.count, skipped: writer.skipped };
  } finally {
    out.close();
  }
}

/** The CifData nodes' rows, in a part file, from their files (cif-rows.ts); their structures' count. */
async function cifPart(backend: StorageBackend, part: string, signal?: AbortSignal): Promise<Built> {
  const out = openOut(part, 'part');
  try {
    const writer = new RowWriter(out);
    let unreadable = 0;
    for (let after = -1; ;) {
      const rows = await backend.db.values(structuresAfter(backend.db.dialect, after, undefined, CIF_TYPE));
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1]![0]);
      const read: unknown[][] = [];
      for (const row of rows) {
        signal?.throwIfAborted();
        const withFile = await withSites(backend, row);
        if (withFile === undefined) unreadable += 1;
        else read.push(withFile);
      }
      writer.add(read);
      if (rows.length < BATCH) break;
    }
    return { count: writer.count, skipped: writer.skipped + unreadable };
  } finally {
    out.close();
  }
}

/** One worker thread of a build, asked one task at a time. */
class BuildWorker {
  private readonly worker: Worker;
  private pending?: { resolve: (reply: WorkerReply & { ok: true }) => void; reject: (e: Error) => void };
  private failure?: Error;
  private readonly exited: Promise<void>;

  constructor(setup: WorkerSetup) {
    this.worker = new Worker(WORKER_FILE, {
      workerData: setup,
      // None of the process's options: a worker refuses some (--max-semi-space-size of the serving processes,
      // --input-type of a program given with -e), and needs none.
      execArgv: [],
    });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (reply: WorkerReply) => {
      const pending = this.pending;
      this.pending = undefined;
      if (reply.ok) pending?.resolve(reply);
      else pending?.reject(new Error(`the OPTIMADE table could not be built: ${reply.error}`));
    });
    this.worker.on('error', (error) => this.stop(error));
    this.worker.on('exit', () => this.stop(new Error('a worker of the OPTIMADE table build stopped')));
  }

  call(task: WorkerTask): Promise<WorkerReply & { ok: true }> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(task);
    });
  }

  stop(error: Error): void {
    this.failure ??= error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.failure);
    void this.worker.terminate();
  }

  /** Ended, and its files let go of. */
  async end(): Promise<void> {
    void this.worker.terminate();
    await this.exited;
  }
}
