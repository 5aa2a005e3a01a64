/**
 * Load a generated archive's database into a PostgreSQL database with the core.psql_dos schema, for the
 * benchmark's PostgreSQL backend. Only for databases the benchmark creates itself: Quarry never creates or
 * writes tables of a user's database.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/** The psql_dos tables Quarry reads, with their column types, as aiida-core 2.x creates them. */
const TABLES: Record<string, Record<string, string>> = {
  db_dbuser: {
    id: 'integer',
    email: 'varchar(254)',
    first_name: 'varchar(254)',
    last_name: 'varchar(254)',
    institution: 'varchar(254)',
  },
  db_dbcomputer: {
    id: 'integer',
    uuid: 'uuid',
    label: 'varchar(255)',
    hostname: 'varchar(255)',
    description: 'text',
    scheduler_type: 'varchar(255)',
    transport_type: 'varchar(255)',
    metadata: 'jsonb',
  },
  db_dbnode: {
    id: 'integer',
    uuid: 'uuid',
    node_type: 'varchar(255)',
    process_type: 'varchar(255)',
    label: 'varchar(255)',
    description: 'text',
    ctime: 'timestamptz',
    mtime: 'timestamptz',
    attributes: 'jsonb',
    extras: 'jsonb',
    repository_metadata: 'jsonb',
    dbcomputer_id: 'integer',
    user_id: 'integer',
  },
  db_dblink: {
    id: 'integer',
    input_id: 'integer',
    output_id: 'integer',
    label: 'varchar(255)',
    type: 'varchar(255)',
  },
  db_dbgroup: {
    id: 'integer',
    uuid: 'uuid',
    label: 'varchar(255)',
    type_string: 'varchar(255)',
    time: 'timestamptz',
    description: 'text',
    extras: 'jsonb',
    user_id: 'integer',
  },
  db_dbgroup_dbnodes: { id: 'integer', dbnode_id: 'integer', dbgroup_id: 'integer' },
  db_dbcomment: {
    id: 'integer',
    uuid: 'uuid',
    dbnode_id: 'integer',
    ctime: 'timestamptz',
    mtime: 'timestamptz',
    user_id: 'integer',
    content: 'text',
  },
  db_dblog: {
    id: 'integer',
    uuid: 'uuid',
    time: 'timestamptz',
    loggername: 'varchar(255)',
    levelname: 'varchar(50)',
    dbnode_id: 'integer',
    message: 'text',
    metadata: 'jsonb',
  },
};

/** The indexes aiida-core creates (btree, and varchar_pattern_ops for LIKE 'prefix%'). */
const INDEXES = [
  'CREATE UNIQUE INDEX ON db_dbnode (uuid)',
  'CREATE INDEX ON db_dbnode (node_type)',
  'CREATE INDEX ON db_dbnode (node_type varchar_pattern_ops)',
  'CREATE INDEX ON db_dbnode (process_type)',
  'CREATE INDEX ON db_dbnode (process_type varchar_pattern_ops)',
  'CREATE INDEX ON db_dbnode (label)',
  'CREATE INDEX ON db_dbnode (label varchar_pattern_ops)',
  'CREATE INDEX ON db_dbnode (ctime)',
  'CREATE INDEX ON db_dbnode (mtime)',
  'CREATE INDEX ON db_dbnode (user_id)',
  'CREATE INDEX ON db_dbnode (dbcomputer_id)',
  'CREATE INDEX ON db_dblink (input_id)',
  'CREATE INDEX ON db_dblink (output_id)',
  'CREATE INDEX ON db_dblink (label)',
  'CREATE INDEX ON db_dblink (type)',
  'CREATE UNIQUE INDEX ON db_dbgroup (uuid)',
  'CREATE UNIQUE INDEX ON db_dbgroup (label, type_string)',
  'CREATE INDEX ON db_dbgroup_dbnodes (dbgroup_id)',
  'CREATE INDEX ON db_dbgroup_dbnodes (dbnode_id)',
  'CREATE UNIQUE INDEX ON db_dbcomment (uuid)',
  'CREATE INDEX ON db_dbcomment (dbnode_id)',
  'CREATE UNIQUE INDEX ON db_dblog (uuid)',
  'CREATE INDEX ON db_dblog (dbnode_id)',
  'CREATE UNIQUE INDEX ON db_dbcomputer (uuid)',
  'CREATE UNIQUE INDEX ON db_dbuser (email)',
];

const BATCH = 5_000;

/** Create the schema in an empty database and copy every table of the SQLite file into it. */
export async function loadIntoPostgres(sqliteFile: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC' });
  await client.connect();
  const source = new BetterSqlite3(sqliteFile, { readonly: true });
  try {
    await client.query('CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)');
    await client.query("INSERT INTO alembic_version VALUES ('main_0001')");
    for (const [table, columns] of Object.entries(TABLES)) {
      const names = Object.keys(columns);
      const defs = names.map((n) => `"${n}" ${columns[n]}${n === 'id' ? ' PRIMARY KEY' : ''}`);
      await client.query(`CREATE TABLE ${table} (${defs.join(', ')})`);
      // One array parameter per column, unnested into rows: a whole batch in one statement.
      const arrays = names.map((n, i) => `$${i + 1}::${arrayType(columns[n] as string)}`);
      const casts = names.map((n) => `"${n}"::${columns[n]}`);
      const insert =
        `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) ` +
        `SELECT ${casts.join(', ')} FROM unnest(${arrays.join(', ')}) AS r(${names.map((n) => `"${n}"`).join(', ')})`;
      const rows = source.prepare(`SELECT ${names.map((n) => `"${n}"`).join(', ')} FROM ${table}`).raw();
      let batch: unknown[][] = names.map(() => []);
      let size = 0;
      const flush = async () => {
        if (size > 0) await client.query(insert, batch);
        batch = names.map(() => []);
        size = 0;
      };
      for (const row of rows.iterate() as Iterable<unknown[]>) {
        row.forEach((value, i) => (batch[i] as unknown[]).push(value));
        if (++size >= BATCH) await flush();
      }
      await flush();
    }
    for (const index of INDEXES) await client.query(index);
    await client.query('VACUUM ANALYZE');
  } finally {
    source.close();
    await client.end();
  }
}

/** Columns travel as text (timestamps, JSON, UUIDs) or integers, and are cast on the way in. */
function arrayType(type: string): string {
  return type === 'integer' ? 'integer[]' : 'text[]';
}
