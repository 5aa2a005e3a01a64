/**
 * The db.sqlite3 of an export whose source is an archive's SQLite copy: the copy is attached and each table's
 * rows go across in one INSERT ... SELECT, with no row passing through JavaScript but the few process nodes
 * whose checkpoints are stripped; the indexes are made once the rows are in (sorted builds: faster, and
 * tighter pages than kept up row by row). Synchronous: it runs in a thread of its own (database-worker.ts) for
 * a large export, in the serving thread for a small one.
 */
import BetterSqlite3 from 'better-sqlite3';
import { ARCHIVE_INDEXES, ARCHIVE_TABLES } from '../domain/sqlite-zip-schema.js';
import { COLUMNS, type Table } from './source-rows.js';
import { stripCheckpoints } from './strip-checkpoints.js';

export interface CopyTask {
  /** The archive's copy in the cache (Quarry's own file: attaching it writes nothing). */
  source: string;
  /** The new database's file. */
  out: string;
  /**
   * Each table with the ids of its rows to copy, in the order `verdi archive create` writes them; nodes keep
   * their ids, as aiida-core's import maps them by UUID.
   */
  tables: [Table, number[]][];
  /** Group memberships as [group id, node id]: they get new ids, as aiida-core's writer gives them. */
  groupNodes: [number, number][];
  /** The ids of the source's links to write, in the order they are written: they get new ids too. */
  links: number[];
}

/** SQLite's page cache while writing (KiB). */
const CACHE_KIB = 64 * 1024;

export function copyDatabase(task: CopyTask): void {
  const out = new BetterSqlite3(task.out);
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    out.pragma(`cache_size = -${CACHE_KIB}`);
    out.function('strip_checkpoints', { deterministic: true }, (attributes: unknown, nodeType: unknown) =>
      stripCheckpoints(attributes, nodeType),
    );
    out.prepare('ATTACH DATABASE ? AS src').run(task.source);
    for (const sql of ARCHIVE_TABLES) out.exec(sql);
    out.transaction(() => {
      for (const [table, ids] of task.tables) {
        const names = COLUMNS[table].map(([name]) => `"${name}"`);
        const values =
          table === 'db_dbnode'
            ? names.map((n) =>
                n === '"attributes"'
                  ? `CASE WHEN node_type LIKE 'process.%' AND instr(attributes, '"checkpoints"') > 0
                      THEN strip_checkpoints(attributes, node_type) ELSE attributes END`
                  : n,
              )
            : names;
        out
          .prepare(
            `INSERT INTO main.${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM src.${table}
             WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
          )
          .run(JSON.stringify(ids));
      }
      const member = out.prepare('INSERT INTO db_dbgroup_dbnodes (dbgroup_id, dbnode_id) VALUES (?, ?)');
      for (const pair of task.groupNodes) member.run(pair);
      out
        .prepare(
          `INSERT INTO db_dblink (input_id, output_id, label, type)
           SELECT l.input_id, l.output_id, l.label, l.type FROM json_each(?) AS j
           CROSS JOIN src.db_dblink AS l ON l.id = j.value ORDER BY j.key`,
        )
        .run(JSON.stringify(task.links));
    })();
    out.exec('DETACH DATABASE src');
    for (const sql of ARCHIVE_INDEXES) out.exec(sql);
  } finally {
    out.close();
  }
}
