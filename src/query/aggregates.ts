/**
 * Grouped counts that the QueryBuilder cannot express (it has no GROUP BY): node creation statistics and
 * node counts per (node_type, process_type). One grouped scan each, instead of one count per type or day.
 * Values are bound; the only dialect difference is how a timestamp is cut to its UTC day.
 */
import type { Database } from '../storage/types.js';

export interface CreationStatistics {
  total: number;
  types: Record<string, number>;
  ctime_by_day: Record<string, number>;
}

function userClause(db: Database, userId: number | undefined): { where: string; params: unknown[] } {
  if (userId === undefined) return { where: '', params: [] };
  return { where: db.dialect === 'postgres' ? 'WHERE user_id = $1' : 'WHERE user_id = ?', params: [userId] };
}

export async function creationStatistics(db: Database, userId?: number): Promise<CreationStatistics> {
  const { where, params } = userClause(db, userId);
  // Archives store naive UTC text, so the day is its first ten characters; PostgreSQL cuts the timestamptz.
  const day =
    db.dialect === 'postgres' ? "to_char(ctime AT TIME ZONE 'UTC', 'YYYY-MM-DD')" : 'substr(ctime, 1, 10)';
  const types = await db.all({
    sql: `SELECT node_type AS t, count(*) AS n FROM db_dbnode ${where} GROUP BY node_type ORDER BY node_type`,
    params,
  });
  const days = await db.all({
    sql: `SELECT ${day} AS d, count(*) AS n FROM db_dbnode ${where} GROUP BY d ORDER BY d`,
    params,
  });
  const typeCounts = Object.fromEntries(types.map((r) => [String(r.t), Number(r.n)]));
  return {
    total: Object.values(typeCounts).reduce((a, b) => a + b, 0),
    types: typeCounts,
    ctime_by_day: Object.fromEntries(days.map((r) => [String(r.d), Number(r.n)])),
  };
}

export interface TypeCount {
  nodeType: string;
  /** `''` stands for both NULL and the empty string, as in aiida. */
  processType: string;
  count: number;
}

export async function typeCounts(db: Database, userId?: number): Promise<TypeCount[]> {
  const { where, params } = userClause(db, userId);
  const rows = await db.all({
    sql:
      `SELECT node_type AS t, coalesce(process_type, '') AS p, count(*) AS n FROM db_dbnode ${where} ` +
      `GROUP BY node_type, coalesce(process_type, '') ORDER BY node_type, p`,
    params,
  });
  return rows.map((r) => ({ nodeType: String(r.t), processType: String(r.p), count: Number(r.n) }));
}
