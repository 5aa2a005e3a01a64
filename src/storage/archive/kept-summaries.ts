/**
 * The whole database's creation statistics and type counts, computed when an archive's database is extracted
 * and kept in Quarry's copy. An archive never changes, so these scans (seconds each at 10^7 nodes, paid by
 * every serving process at its first such request after every start) are paid once per archive.
 */
import BetterSqlite3 from 'better-sqlite3';
import { creationStatistics, typeCounts } from '../aggregates.js';
import type { Database, KeptSummaryName, SqlRow } from '../types.js';

const TABLE = 'quarry_summaries';

/** Compute the summaries of the database in `file` (writable, not yet served) and keep them in it. */
export async function keepSummaries(file: string): Promise<void> {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    // The aggregates' SQL, run synchronously on this connection (the copy is not served yet).
    const reader: Database = {
      dialect: 'sqlite',
      all: async (s) => db.prepare(s.sql).all(...s.params) as SqlRow[],
      values: async (s) =>
        db
          .prepare(s.sql)
          .raw(true)
          .all(...s.params) as unknown[][],
      close: async () => {},
    };
    const kept: Record<KeptSummaryName, unknown> = {
      creationStatistics: await creationStatistics(reader),
      typeCounts: await typeCounts(reader),
    };
    db.exec(`CREATE TABLE ${TABLE} (name TEXT NOT NULL, value TEXT NOT NULL)`);
    const insert = db.prepare(`INSERT INTO ${TABLE} (name, value) VALUES (?, ?)`);
    for (const [name, value] of Object.entries(kept)) insert.run(name, JSON.stringify(value));
  } catch {
    // Only an optimisation: a database without them is summarised at the first request, as a live one is.
  } finally {
    db.close();
  }
}

/** The JSON text of a kept summary, or undefined when the copy has none. */
export async function keptSummary(db: Database, name: KeptSummaryName): Promise<string | undefined> {
  try {
    const rows = await db.all({ sql: `SELECT value FROM ${TABLE} WHERE name = ?`, params: [name] });
    const value = rows[0]?.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
