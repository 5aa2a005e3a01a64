/**
 * The nodes of each type in creation order, kept in an archive's extracted copy beside the nodes table (never
 * in a live profile's database, which Quarry does not write).
 *
 * A page of one node type by -ctime otherwise reads every node of the type through the type index and sorts
 * them: 13-39 ms for the rare types of a 10^6-node archive the first time (then the rows are kept), against 0.1
 * ms in this table's order. It is a table and not an index of db_dbnode on purpose: an index on (node_type,
 * ctime) was taken by SQLite's planner for other queries too (posted QueryBuilder queries filtered by type
 * without `order_by` then came in another row order than the reference's); a table that only the page of a
 * listing names changes no other statement's plan.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../types.js';

/** Its name; the columns keep db_dbnode's declared types, so that values compare and sort as they do there. */
export const TYPE_ORDER_TABLE = 'quarry_node_type_ctime';

/** What the copy gains; part of the copy's identity (extract.ts), so changing it makes new copies. */
export const TYPE_ORDER_SQL = [
  `CREATE TABLE ${TYPE_ORDER_TABLE} (node_type VARCHAR(255) NOT NULL, ctime DATETIME NOT NULL, ` +
    'id INTEGER NOT NULL, PRIMARY KEY (node_type, ctime DESC, id ASC)) WITHOUT ROWID',
  // In key order: the tree is written left to right instead of split at random places.
  `INSERT INTO ${TYPE_ORDER_TABLE} (node_type, ctime, id) ` +
    'SELECT node_type, ctime, id FROM db_dbnode ORDER BY node_type, ctime DESC, id ASC',
];

/** Fills the table in a copy not yet served; a database it does not fit is served without it. */
export function keepTypeOrder(db: BetterSqlite3.Database): void {
  try {
    db.transaction(() => {
      for (const sql of TYPE_ORDER_SQL) db.exec(sql);
    })();
  } catch {
    // Only an optimisation: the page is then read as on a live profile.
  }
}

/**
 * The table's name when the copy `db` serves has it (a database it did not fit has none). Asked through the
 * copy's own connections: another connection opened for it held one more file per source being opened, past
 * the open-file bound of a portal opening many at once.
 */
export async function typeOrderTable(db: Database): Promise<string | undefined> {
  try {
    const rows = await db.all({
      sql: "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?",
      params: [TYPE_ORDER_TABLE],
    });
    return rows.length === 0 ? undefined : TYPE_ORDER_TABLE;
  } catch {
    return undefined;
  }
}
