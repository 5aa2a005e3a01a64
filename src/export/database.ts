/**
 * The db.sqlite3 of an export, written into a temporary file of the cache from an ExportPlan: aiida-core's
 * sqlite_zip schema (src/domain/sqlite-zip-schema.ts), then the rows in the order `verdi archive create` writes
 * them (users, computers, groups, nodes, comments, logs, group memberships, links). Nodes keep their ids
 * (aiida-core's import maps them by UUID); memberships and links get new ones, as aiida-core's writer gives
 * them. Process nodes lose their `checkpoints` attribute, as `strip_checkpoints` (the default) does.
 *
 * From an archive's SQLite copy, the tables are copied whole by SQL (database-copy.ts), a large export's in a
 * thread of its own; from a live profile, the rows are read through the source's own connections (its
 * processes, its servers) and written here a transaction at a time, between the serving thread's requests.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, QueryBudget } from '../storage/types.js';
import { toJson } from '../util/exact-json.js';
import type { ExportPlan } from './plan.js';
import { ARCHIVE_INDEXES, ARCHIVE_TABLES } from '../domain/sqlite-zip-schema.js';
import { copyDatabase, type CopyTask } from './database-copy.js';
import type { CopyReply } from './database-worker.js';
import { COLUMNS, rowsWhere, type Table } from './source-rows.js';
import { stripCheckpoints } from './strip-checkpoints.js';

/** The tables in the order `verdi archive create` writes them, each with the plan's field of its rows' ids. */
const ORDER: [Table, keyof ExportPlan][] = [
  ['db_dbuser', 'users'],
  ['db_dbcomputer', 'computers'],
  ['db_dbgroup', 'groups'],
  ['db_dbnode', 'nodes'],
  ['db_dbcomment', 'comments'],
  ['db_dblog', 'logs'],
];

/** SQLite's page cache while writing (KiB): the pages of the indexes being updated stay in it. */
const CACHE_KIB = 32 * 1024;

/** Rows inserted per transaction: the serving thread gets a turn between them. */
const ROWS_PER_TRANSACTION = 2_000;

/**
 * Rows (nodes, links, memberships) and bytes of the nodes' JSON up to which a copy runs in the serving thread:
 * a few milliseconds, less than a thread's start.
 */
const IN_THREAD_ROWS = 2_000;
const IN_THREAD_BYTES = 4 * 1024 ** 2;

/** The compiled worker; where there is none (the test runner runs the TypeScript sources), this thread copies. */
const WORKER_FILE = fileURLToPath(new URL('./database-worker.js', import.meta.url));

/** How often a copy in its thread looks whether its client is gone or its time is up. */
const WATCH_MS = 50;

/**
 * Writes the database of `plan` into `file`; `copy` is the source's SQLite copy, when it is an archive's. Stops
 * early (the file then incomplete) once `stopped` says so.
 */
export async function writeDatabase(
  source: Database,
  plan: ExportPlan,
  file: string,
  budget: QueryBudget,
  stopped: () => boolean,
  copy?: string,
): Promise<void> {
  if (copy === undefined) return writeRows(source, plan, file, budget, stopped);
  const task: CopyTask = {
    source: copy,
    out: file,
    tables: ORDER.map(([table, field]) => [table, plan[field] as number[]]),
    groupNodes: plan.groupNodes,
    links: plan.links.map((l) => l.id),
  };
  const rows = plan.nodes.length + plan.links.length + plan.groupNodes.length;
  const small = rows <= IN_THREAD_ROWS && plan.rowBytes <= IN_THREAD_BYTES;
  if (small || !existsSync(WORKER_FILE)) copyDatabase(task);
  else await copyInThread(task, budget, stopped);
}

/** Runs `task` in a thread of its own, stopped when the client is gone or the time is up. */
function copyInThread(task: CopyTask, budget: QueryBudget, stopped: () => boolean): Promise<void> {
  // None of the process's options: a worker refuses some (see optimade/side-build.ts), and needs none.
  const worker = new Worker(WORKER_FILE, { execArgv: [] });
  let outcome: Error | undefined;
  let stopping = false;
  // A statement running in the thread ends first: the thread is gone once it returns (well under a second).
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void worker.terminate();
  };
  const watch = setInterval(() => {
    if (stopped()) stop();
    else if (Date.now() > budget.deadline) {
      outcome = new Error('the export ran past its time limit');
      stop();
    }
  }, WATCH_MS);
  worker.once('message', (reply: CopyReply) => {
    if (!reply.ok) outcome = new Error(`the export's database could not be written: ${reply.error}`);
  });
  worker.once('error', (error) => (outcome ??= error));
  worker.postMessage(task);
  // Settled once the thread is gone, and with it its hold on the file (the caller removes it then).
  return new Promise((resolve, reject) => {
    worker.once('exit', () => {
      clearInterval(watch);
      if (outcome === undefined) resolve();
      else reject(outcome);
    });
  });
}

async function writeRows(
  source: Database,
  plan: ExportPlan,
  file: string,
  budget: QueryBudget,
  stopped: () => boolean,
): Promise<void> {
  const out = new BetterSqlite3(file);
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    out.pragma(`cache_size = -${CACHE_KIB}`);
    // The indexes are kept up as the rows go in, a transaction at a time: built after them, each would hold
    // the serving thread for a table scan (0.1-0.4 s at 10^5 nodes).
    for (const sql of [...ARCHIVE_TABLES, ...ARCHIVE_INDEXES]) out.exec(sql);
    for (const [table, field] of ORDER) {
      const names = COLUMNS[table].map(([name]) => name);
      const insert = out.prepare(
        `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      );
      const nodeType = names.indexOf('node_type');
      const attributes = names.indexOf('attributes');
      const many = out.transaction((rows: unknown[][]) => {
        for (const row of rows) {
          if (table === 'db_dbnode') row[attributes] = stripCheckpoints(row[attributes], row[nodeType]);
          insert.run(row.map(sqliteValue));
        }
      });
      for await (const rows of rowsWhere(source, table, 'id', plan[field] as number[], budget)) {
        if (stopped()) return;
        many(rows);
      }
    }
    const member = out.prepare('INSERT INTO db_dbgroup_dbnodes (dbgroup_id, dbnode_id) VALUES (?, ?)');
    const link = out.prepare('INSERT INTO db_dblink (input_id, output_id, label, type) VALUES (?, ?, ?, ?)');
    const members = out.transaction((rows: [number, number][]) => {
      for (const [group, node] of rows) member.run(group, node);
    });
    const links = out.transaction((rows: ExportPlan['links']) => {
      for (const l of rows) link.run(l.input, l.output, l.label, l.type);
    });
    for (let i = 0; i < plan.groupNodes.length; i += ROWS_PER_TRANSACTION) {
      members(plan.groupNodes.slice(i, i + ROWS_PER_TRANSACTION));
      await turn();
      if (stopped()) return;
    }
    for (let i = 0; i < plan.links.length; i += ROWS_PER_TRANSACTION) {
      links(plan.links.slice(i, i + ROWS_PER_TRANSACTION));
      await turn();
      if (stopped()) return;
    }
  } finally {
    out.close();
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Values as SQLite takes them: objects (JSON a driver decoded) as their text. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return toJson(value);
  return value;
}
