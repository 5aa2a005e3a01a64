/**
 * The core.psql_dos schema as aiida-core 2.x creates it (revision main_0001; `pg_dump` of a profile made by
 * aiida-core 2.3.1): the tables Quarry reads, then the same keys, unique constraints, indexes and foreign keys
 * under the same names. The benchmark builds exactly this, so that its plans and figures hold for real
 * profiles: an index that AiiDA lacks is never here (docs/performance.md says which would help, measured).
 */

/** Columns of each table, in the order of the archive's tables (and of the COPY). */
export const TABLES: Record<string, Record<string, string>> = {
  db_dbuser: {
    id: 'integer NOT NULL',
    email: 'varchar(254) NOT NULL',
    first_name: 'varchar(254) NOT NULL',
    last_name: 'varchar(254) NOT NULL',
    institution: 'varchar(254) NOT NULL',
  },
  db_dbcomputer: {
    id: 'integer NOT NULL',
    uuid: 'uuid NOT NULL',
    label: 'varchar(255) NOT NULL',
    hostname: 'varchar(255) NOT NULL',
    description: 'text NOT NULL',
    scheduler_type: 'varchar(255) NOT NULL',
    transport_type: 'varchar(255) NOT NULL',
    metadata: 'jsonb NOT NULL',
  },
  db_dbnode: {
    id: 'integer NOT NULL',
    uuid: 'uuid NOT NULL',
    node_type: 'varchar(255) NOT NULL',
    process_type: 'varchar(255)',
    label: 'varchar(255) NOT NULL',
    description: 'text NOT NULL',
    ctime: 'timestamptz NOT NULL',
    mtime: 'timestamptz NOT NULL',
    attributes: 'jsonb',
    extras: 'jsonb',
    repository_metadata: 'jsonb NOT NULL',
    dbcomputer_id: 'integer',
    user_id: 'integer NOT NULL',
  },
  db_dblink: {
    id: 'integer NOT NULL',
    input_id: 'integer NOT NULL',
    output_id: 'integer NOT NULL',
    label: 'varchar(255) NOT NULL',
    type: 'varchar(255) NOT NULL',
  },
  db_dbgroup: {
    id: 'integer NOT NULL',
    uuid: 'uuid NOT NULL',
    label: 'varchar(255) NOT NULL',
    type_string: 'varchar(255) NOT NULL',
    time: 'timestamptz NOT NULL',
    description: 'text NOT NULL',
    extras: 'jsonb NOT NULL',
    user_id: 'integer NOT NULL',
  },
  db_dbgroup_dbnodes: {
    id: 'integer NOT NULL',
    dbnode_id: 'integer NOT NULL',
    dbgroup_id: 'integer NOT NULL',
  },
  db_dbcomment: {
    id: 'integer NOT NULL',
    uuid: 'uuid NOT NULL',
    dbnode_id: 'integer NOT NULL',
    ctime: 'timestamptz NOT NULL',
    mtime: 'timestamptz NOT NULL',
    user_id: 'integer NOT NULL',
    content: 'text NOT NULL',
  },
  db_dblog: {
    id: 'integer NOT NULL',
    uuid: 'uuid NOT NULL',
    time: 'timestamptz NOT NULL',
    loggername: 'varchar(255) NOT NULL',
    levelname: 'varchar(50) NOT NULL',
    dbnode_id: 'integer NOT NULL',
    message: 'text NOT NULL',
    metadata: 'jsonb NOT NULL',
  },
};

/** Keys and unique constraints (each builds its index). */
const CONSTRAINTS = [
  'ALTER TABLE db_dbuser ADD CONSTRAINT db_dbuser_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbcomputer ADD CONSTRAINT db_dbcomputer_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbnode ADD CONSTRAINT db_dbnode_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dblink ADD CONSTRAINT db_dblink_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbgroup ADD CONSTRAINT db_dbgroup_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbgroup_dbnodes ADD CONSTRAINT db_dbgroup_dbnodes_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbcomment ADD CONSTRAINT db_dbcomment_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dblog ADD CONSTRAINT db_dblog_pkey PRIMARY KEY (id)',
  'ALTER TABLE db_dbnode ADD CONSTRAINT uq_db_dbnode_uuid UNIQUE (uuid)',
  'ALTER TABLE db_dbcomment ADD CONSTRAINT uq_db_dbcomment_uuid UNIQUE (uuid)',
  'ALTER TABLE db_dbcomputer ADD CONSTRAINT uq_db_dbcomputer_label UNIQUE (label)',
  'ALTER TABLE db_dbcomputer ADD CONSTRAINT uq_db_dbcomputer_uuid UNIQUE (uuid)',
  'ALTER TABLE db_dbgroup_dbnodes ADD CONSTRAINT uq_db_dbgroup_dbnodes_dbgroup_id_dbnode_id UNIQUE (dbgroup_id, dbnode_id)',
  'ALTER TABLE db_dbgroup ADD CONSTRAINT uq_db_dbgroup_label_type_string UNIQUE (label, type_string)',
  'ALTER TABLE db_dbgroup ADD CONSTRAINT uq_db_dbgroup_uuid UNIQUE (uuid)',
  'ALTER TABLE db_dblog ADD CONSTRAINT uq_db_dblog_uuid UNIQUE (uuid)',
  'ALTER TABLE db_dbuser ADD CONSTRAINT uq_db_dbuser_email UNIQUE (email)',
];

/** [name, table, definition] of every other index: btree, and varchar_pattern_ops for LIKE 'prefix%'. */
const INDEXES: [string, string, string][] = [
  ['ix_db_dbcomment_db_dbcomment_dbnode_id', 'db_dbcomment', 'dbnode_id'],
  ['ix_db_dbcomment_db_dbcomment_user_id', 'db_dbcomment', 'user_id'],
  ['ix_db_dbgroup_db_dbgroup_label', 'db_dbgroup', 'label'],
  ['ix_db_dbgroup_db_dbgroup_type_string', 'db_dbgroup', 'type_string'],
  ['ix_db_dbgroup_db_dbgroup_user_id', 'db_dbgroup', 'user_id'],
  ['ix_db_dbgroup_dbnodes_db_dbgroup_dbnodes_dbgroup_id', 'db_dbgroup_dbnodes', 'dbgroup_id'],
  ['ix_db_dbgroup_dbnodes_db_dbgroup_dbnodes_dbnode_id', 'db_dbgroup_dbnodes', 'dbnode_id'],
  ['ix_db_dblink_db_dblink_input_id', 'db_dblink', 'input_id'],
  ['ix_db_dblink_db_dblink_label', 'db_dblink', 'label'],
  ['ix_db_dblink_db_dblink_output_id', 'db_dblink', 'output_id'],
  ['ix_db_dblink_db_dblink_type', 'db_dblink', 'type'],
  ['ix_db_dblog_db_dblog_dbnode_id', 'db_dblog', 'dbnode_id'],
  ['ix_db_dblog_db_dblog_levelname', 'db_dblog', 'levelname'],
  ['ix_db_dblog_db_dblog_loggername', 'db_dblog', 'loggername'],
  ['ix_db_dbnode_db_dbnode_ctime', 'db_dbnode', 'ctime'],
  ['ix_db_dbnode_db_dbnode_dbcomputer_id', 'db_dbnode', 'dbcomputer_id'],
  ['ix_db_dbnode_db_dbnode_label', 'db_dbnode', 'label'],
  ['ix_db_dbnode_db_dbnode_mtime', 'db_dbnode', 'mtime'],
  ['ix_db_dbnode_db_dbnode_node_type', 'db_dbnode', 'node_type'],
  ['ix_db_dbnode_db_dbnode_process_type', 'db_dbnode', 'process_type'],
  ['ix_db_dbnode_db_dbnode_user_id', 'db_dbnode', 'user_id'],
  ['ix_pat_db_dbcomputer_label', 'db_dbcomputer', 'label varchar_pattern_ops'],
  ['ix_pat_db_dbgroup_label', 'db_dbgroup', 'label varchar_pattern_ops'],
  ['ix_pat_db_dbgroup_type_string', 'db_dbgroup', 'type_string varchar_pattern_ops'],
  ['ix_pat_db_dblink_label', 'db_dblink', 'label varchar_pattern_ops'],
  ['ix_pat_db_dblink_type', 'db_dblink', 'type varchar_pattern_ops'],
  ['ix_pat_db_dblog_levelname', 'db_dblog', 'levelname varchar_pattern_ops'],
  ['ix_pat_db_dblog_loggername', 'db_dblog', 'loggername varchar_pattern_ops'],
  ['ix_pat_db_dbnode_label', 'db_dbnode', 'label varchar_pattern_ops'],
  ['ix_pat_db_dbnode_node_type', 'db_dbnode', 'node_type varchar_pattern_ops'],
  ['ix_pat_db_dbnode_process_type', 'db_dbnode', 'process_type varchar_pattern_ops'],
  ['ix_pat_db_dbuser_email', 'db_dbuser', 'email varchar_pattern_ops'],
];

/** [constraint, table, column, referenced table, ON DELETE action or ''] */
const FOREIGN_KEYS: [string, string, string, string, string][] = [
  ['fk_db_dbcomment_dbnode_id_db_dbnode', 'db_dbcomment', 'dbnode_id', 'db_dbnode', 'CASCADE'],
  ['fk_db_dbcomment_user_id_db_dbuser', 'db_dbcomment', 'user_id', 'db_dbuser', 'CASCADE'],
  ['fk_db_dbgroup_dbnodes_dbgroup_id_db_dbgroup', 'db_dbgroup_dbnodes', 'dbgroup_id', 'db_dbgroup', ''],
  ['fk_db_dbgroup_dbnodes_dbnode_id_db_dbnode', 'db_dbgroup_dbnodes', 'dbnode_id', 'db_dbnode', ''],
  ['fk_db_dbgroup_user_id_db_dbuser', 'db_dbgroup', 'user_id', 'db_dbuser', 'CASCADE'],
  ['fk_db_dblink_input_id_db_dbnode', 'db_dblink', 'input_id', 'db_dbnode', ''],
  ['fk_db_dblink_output_id_db_dbnode', 'db_dblink', 'output_id', 'db_dbnode', 'CASCADE'],
  ['fk_db_dblog_dbnode_id_db_dbnode', 'db_dblog', 'dbnode_id', 'db_dbnode', 'CASCADE'],
  ['fk_db_dbnode_dbcomputer_id_db_dbcomputer', 'db_dbnode', 'dbcomputer_id', 'db_dbcomputer', 'RESTRICT'],
  ['fk_db_dbnode_user_id_db_dbuser', 'db_dbnode', 'user_id', 'db_dbuser', 'RESTRICT'],
];

/** `CREATE TABLE` of one table, without keys (they are built after the data is in). */
export function createTable(table: string): string {
  const columns = TABLES[table];
  if (!columns) throw new Error(`no such table in the core.psql_dos schema: ${table}`);
  return `CREATE TABLE ${table} (${Object.entries(columns)
    .map(([name, type]) => `"${name}" ${type}`)
    .join(', ')})`;
}

/** What is built once the rows are in, in order: keys, then indexes, then foreign keys (which use the keys). */
export function afterLoad(): { keys: string[]; indexes: string[]; foreignKeys: string[] } {
  return {
    keys: CONSTRAINTS,
    indexes: INDEXES.map(([name, table, def]) => `CREATE INDEX ${name} ON ${table} USING btree (${def})`),
    foreignKeys: FOREIGN_KEYS.map(
      ([name, table, column, target, onDelete]) =>
        `ALTER TABLE ${table} ADD CONSTRAINT ${name} FOREIGN KEY (${column}) REFERENCES ${target}(id)` +
        `${onDelete ? ` ON DELETE ${onDelete}` : ''} DEFERRABLE INITIALLY DEFERRED`,
    ),
  };
}

/** The table and index names of the schema, for a test that compares them with a real profile's dump. */
export function schemaIndexNames(): string[] {
  const named = (sql: string) => /CONSTRAINT (\S+) (PRIMARY KEY|UNIQUE)/.exec(sql)?.[1];
  return [...CONSTRAINTS.map(named), ...INDEXES.map(([name]) => name)].filter((n): n is string => !!n);
}
