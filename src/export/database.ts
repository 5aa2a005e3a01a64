/**
 * The db.sqlite3 of an export, written into a temporary file of the cache from an ExportPlan: aiida-core's
 * sqlite_zip schema (src/domain/sqlite-zip-schema.ts), then the rows in the order `verdi archive create` writes
 * them (users, computers, groups, nodes, comments, logs, group memberships, links). Nodes keep their ids (aiida-core's import maps them by UUID);
 * memberships and links get new ones, as aiida-core's writer gives them. Process nodes lose their
 * `checkpoints` attribute, as `strip_checkpoints` (the default) does.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { Database, QueryBudget } from '../storage/types.js';
import { parseMarked } from '../util/json-text.js';
import { toJson } from '../util/exact-json.js';
import type { ExportPlan } from './plan.js';
import { ARCHIVE_INDEXES, ARCHIVE_TABLES } from '../domain/sqlite-zip-schema.js';
import { COLUMNS, rowsWhere, type Table } from './source-rows.js';

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

export async function writeDatabase(
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
          if (table === 'db_dbnode') row[attributes] = stripped(row[attributes], row[nodeType]);
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

/** A node's attributes, with a process node's checkpoints left out. */
function stripped(value: unknown, nodeType: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('"checkpoints"')) return value;
  if (!String(nodeType).startsWith('process.')) return value;
  const attributes = parseMarked(value);
  if (attributes === null || typeof attributes !== 'object' || !('checkpoints' in attributes)) return value;
  delete (attributes as Record<string, unknown>).checkpoints;
  return toJson(attributes);
}

/** Values as SQLite takes them: objects (JSON a driver decoded) as their text. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return toJson(value);
  return value;
}
