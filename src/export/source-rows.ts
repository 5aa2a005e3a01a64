/**
 * What an export reads from the source: ids by UUID, the links around a set of nodes, and the rows of every
 * table it writes, in the columns and value forms of aiida-core's sqlite_zip database. The sources are an
 * archive's SQLite copy (the same tables, the same forms) or a psql_dos PostgreSQL database (UUID, JSONB and
 * timestamptz columns, cast here to the archive's text forms). Ids go in bound IN lists of bounded length.
 */
import type { Database, QueryBudget } from '../storage/types.js';

/** Ids per IN list: well under SQLite's and PostgreSQL's limits on bound parameters. */
const BATCH = 500;

export type Table = 'db_dbuser' | 'db_dbcomputer' | 'db_dbgroup' | 'db_dbnode' | 'db_dbcomment' | 'db_dblog';

type Kind = 'text' | 'uuid' | 'time' | 'json';
/** The columns of each table an export writes, with what their values need on PostgreSQL. */
export const COLUMNS: Record<Table, [string, Kind][]> = {
  db_dbuser: [
    ['id', 'text'],
    ['email', 'text'],
    ['first_name', 'text'],
    ['last_name', 'text'],
    ['institution', 'text'],
  ],
  db_dbcomputer: [
    ['id', 'text'],
    ['uuid', 'uuid'],
    ['label', 'text'],
    ['hostname', 'text'],
    ['description', 'text'],
    ['scheduler_type', 'text'],
    ['transport_type', 'text'],
    ['metadata', 'json'],
  ],
  db_dbgroup: [
    ['id', 'text'],
    ['uuid', 'uuid'],
    ['label', 'text'],
    ['type_string', 'text'],
    ['time', 'time'],
    ['description', 'text'],
    ['extras', 'json'],
    ['user_id', 'text'],
  ],
  db_dbnode: [
    ['id', 'text'],
    ['uuid', 'uuid'],
    ['node_type', 'text'],
    ['process_type', 'text'],
    ['label', 'text'],
    ['description', 'text'],
    ['ctime', 'time'],
    ['mtime', 'time'],
    ['attributes', 'json'],
    ['extras', 'json'],
    ['repository_metadata', 'json'],
    ['dbcomputer_id', 'text'],
    ['user_id', 'text'],
  ],
  db_dbcomment: [
    ['id', 'text'],
    ['uuid', 'uuid'],
    ['dbnode_id', 'text'],
    ['ctime', 'time'],
    ['mtime', 'time'],
    ['user_id', 'text'],
    ['content', 'text'],
  ],
  db_dblog: [
    ['id', 'text'],
    ['uuid', 'uuid'],
    ['time', 'time'],
    ['loggername', 'text'],
    ['levelname', 'text'],
    ['dbnode_id', 'text'],
    ['message', 'text'],
    ['metadata', 'json'],
  ],
};

/** The SELECT list of a table's columns, as the archive holds them. */
function selectList(db: Database, table: Table): string {
  return COLUMNS[table]
    .map(([name, kind]) => {
      const col = name === 'time' ? '"time"' : name;
      if (db.dialect === 'sqlite' || kind === 'text') return col;
      if (kind === 'uuid') return `CAST(${col} AS text) AS ${name}`;
      if (kind === 'json') return `CAST(${col} AS text) AS ${name}`;
      // Naive UTC with six digits of fraction: what SQLAlchemy writes into an archive.
      return `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS ${name}`;
    })
    .join(', ');
}

function marks(db: Database, n: number, from = 1): string {
  if (db.dialect === 'sqlite') return Array.from({ length: n }, () => '?').join(', ');
  return Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');
}

/** `values` in slices of at most BATCH. */
export function* slices<T>(values: Iterable<T>, size = BATCH): Generator<T[]> {
  let part: T[] = [];
  for (const v of values) {
    part.push(v);
    if (part.length === size) {
      yield part;
      part = [];
    }
  }
  if (part.length > 0) yield part;
}

/** Each UUID's id in `table` (nodes or groups); the UUIDs it does not hold are absent from the map. */
export async function idsOfUuids(
  db: Database,
  table: 'db_dbnode' | 'db_dbgroup',
  uuids: string[],
  budget: QueryBudget,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  // The UUIDs were checked for their form (params.ts), so PostgreSQL's cast of each to uuid cannot fail; both
  // dialects look them up in the column's unique index. AiiDA writes UUIDs in lower case.
  const uuidText = db.dialect === 'sqlite' ? 'uuid' : 'CAST(uuid AS text)';
  for (const part of slices(uuids)) {
    const rows = await db.all(
      {
        sql: `SELECT id, ${uuidText} AS u FROM ${table} WHERE uuid IN (${marks(db, part.length)})`,
        params: part,
      },
      budget,
    );
    for (const r of rows) found.set(String(r.u), Number(r.id));
  }
  return found;
}

export interface LinkRow {
  id: number;
  input: number;
  output: number;
  label: string;
  type: string;
}

/**
 * The links out of (`input_id`) or into (`output_id`) the given nodes. Their types are chosen by the caller: a
 * condition on the type makes SQLite's planner take the type's index (a handful of values over every link)
 * instead of the node's, a thousand times slower at 10^5 nodes.
 */
export async function linksAt(
  db: Database,
  end: 'input_id' | 'output_id',
  nodes: number[],
  budget: QueryBudget,
): Promise<LinkRow[]> {
  const out: LinkRow[] = [];
  for (const part of slices(nodes)) {
    const rows = await db.values(
      {
        sql: `SELECT id, input_id, output_id, label, type FROM db_dblink WHERE ${end} IN (${marks(db, part.length)})`,
        params: part,
      },
      budget,
    );
    for (const [id, input, output, label, type] of rows)
      out.push({
        id: Number(id),
        input: Number(input),
        output: Number(output),
        label: String(label),
        type: String(type),
      });
  }
  return out;
}

/**
 * The rows of `table` whose `key` column is one of `values`, as arrays in the order of COLUMNS, in the archive's
 * forms (an array per row: no object to build and send from the database's process). The next slice
 * is asked for while the caller handles this one, so that the database's process and the caller work at once.
 */
export async function* rowsWhere(
  db: Database,
  table: Table,
  key: string,
  values: Iterable<number>,
  budget: QueryBudget,
): AsyncGenerator<unknown[][]> {
  const list = selectList(db, table);
  const read = (part: number[]) => {
    const rows = db.values(
      {
        sql: `SELECT ${list} FROM ${table} WHERE ${key} IN (${marks(db, part.length)}) ORDER BY id`,
        params: part,
      },
      budget,
    );
    // A caller that stops early never awaits the slice asked for ahead: its failure is not a crash.
    rows.catch(() => undefined);
    return rows;
  };
  const parts = slices(values);
  let ahead = parts.next();
  let next = ahead.done === true ? undefined : read(ahead.value);
  while (next !== undefined) {
    const rows = await next;
    ahead = parts.next();
    next = ahead.done === true ? undefined : read(ahead.value);
    yield rows;
  }
}

/** One column's distinct non-null values over the rows of `table` whose `key` is one of `values`. */
export async function distinctOf(
  db: Database,
  table: Table | 'db_dbgroup_dbnodes',
  column: string,
  key: string,
  values: Iterable<number>,
  budget: QueryBudget,
): Promise<Set<number>> {
  const out = new Set<number>();
  for (const part of slices(values)) {
    const rows = await db.values(
      {
        sql: `SELECT DISTINCT ${column} FROM ${table} WHERE ${key} IN (${marks(db, part.length)}) AND ${column} IS NOT NULL`,
        params: part,
      },
      budget,
    );
    for (const [v] of rows) out.add(Number(v));
  }
  return out;
}

/** The members of the given groups that are nodes of the source (a legacy archive may name missing ones). */
export async function groupMembers(
  db: Database,
  groups: Iterable<number>,
  budget: QueryBudget,
): Promise<[number, number][]> {
  const out: [number, number][] = [];
  for (const part of slices(groups)) {
    const rows = await db.values(
      {
        sql: `SELECT g.dbgroup_id, g.dbnode_id FROM db_dbgroup_dbnodes g JOIN db_dbnode n ON n.id = g.dbnode_id WHERE g.dbgroup_id IN (${marks(db, part.length)}) ORDER BY g.dbgroup_id, g.dbnode_id`,
        params: part,
      },
      budget,
    );
    for (const [g, n] of rows) out.push([Number(g), Number(n)]);
  }
  return out;
}

/** Every id of a table, in order (an export of everything). */
export async function allIds(db: Database, table: Table, budget: QueryBudget): Promise<number[]> {
  const rows = await db.values({ sql: `SELECT id FROM ${table} ORDER BY id`, params: [] }, budget);
  return rows.map(([id]) => Number(id));
}
