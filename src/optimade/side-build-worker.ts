/**
 * A worker thread of a side table's build (side-build.ts). A SQLite source is read here directly, read-only,
 * a range of pks at a time: no query process in between, whose answers would be sent as text and parsed
 * again in the serving thread. Each worker writes its rows to a part file of its own; one worker then joins
 * the parts and builds the indexes. The serving thread only hands out ranges and waits. The symmetry pass
 * (side-symmetry.ts) runs in workers of its own the same way, its parts written into a copy of the table.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { BATCH, finishTable, openOut, RowWriter, structuresAfter } from './side-rows.js';
import { finishSymmetry, openSymmetryPart, SymmetryWriter } from './side-symmetry.js';

export interface WorkerSetup {
  /** The source's database file, or none for a worker that only finishes. */
  source?: string;
  unchanging?: boolean;
  /** This worker's part file. */
  part?: string;
  /** The rows of the first pass (default), or their symmetry. */
  pass?: 'rows' | 'symmetry';
}

export type WorkerTask =
  | { kind: 'range'; after: number; upTo: number }
  | { kind: 'end' }
  | {
      kind: 'finish';
      target: string;
      /** The target has its tables already (its rows written by the serving thread). */
      created: boolean;
      parts: string[];
      version: string;
      count: number;
      skipped: number;
    }
  | { kind: 'finish-symmetry'; target: string; parts: string[]; version: string };

export type WorkerReply = { ok: true; count?: number; skipped?: number } | { ok: false; error: string };

const setup = workerData as WorkerSetup;
let source: BetterSqlite3.Database | undefined;
let out: BetterSqlite3.Database | undefined;
let writer: RowWriter | SymmetryWriter | undefined;

async function readRange(after: number, upTo: number): Promise<void> {
  if (source === undefined) {
    source = new BetterSqlite3(setup.source!, { readonly: true, fileMustExist: true });
    source.pragma('query_only = ON');
    // A live profile's writers must never wait for the build; an archive's copy never changes.
    if (setup.unchanging) source.pragma('locking_mode = EXCLUSIVE');
    if (setup.pass === 'symmetry') {
      out = openSymmetryPart(setup.part!);
      writer = new SymmetryWriter(out);
    } else {
      out = openOut(setup.part!, 'part');
      writer = new RowWriter(out);
    }
  }
  for (let from = after; ;) {
    const { sql, params } = structuresAfter('sqlite', from, upTo);
    const rows = source
      .prepare(sql)
      .raw(true)
      .all(...params) as unknown[][];
    if (rows.length === 0) return;
    await writer!.add(rows);
    from = Number(rows[rows.length - 1]![0]);
    if (rows.length < BATCH) return;
  }
}

async function run(task: WorkerTask): Promise<WorkerReply> {
  switch (task.kind) {
    case 'range':
      await readRange(task.after, task.upTo);
      return { ok: true, count: writer?.count ?? 0 };
    case 'end': {
      const skipped = writer instanceof RowWriter ? writer.skipped : 0;
      const done = { ok: true as const, count: writer?.count ?? 0, skipped };
      source?.close();
      out?.close();
      if (writer instanceof SymmetryWriter) await writer.close();
      return done;
    }
    case 'finish': {
      const target = openOut(task.target, task.created ? 'none' : 'whole');
      try {
        finishTable(target, task.parts, task);
      } finally {
        target.close();
      }
      return { ok: true };
    }
    case 'finish-symmetry': {
      const target = new BetterSqlite3(task.target);
      try {
        finishSymmetry(target, task.parts, task.version);
      } finally {
        target.close();
      }
      return { ok: true };
    }
  }
}

// Tasks come one at a time: the serving thread awaits each reply before it sends the next.
parentPort!.on('message', async (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    reply = await run(task);
  } catch (error) {
    reply = { ok: false, error: String((error as Error)?.message ?? error) };
  }
  parentPort!.postMessage(reply);
});
