/**
 * The SQLite copy a legacy archive is converted into: the tables of an AiiDA 2.x archive's db.sqlite3
 * (export version main_0001, as `verdi archive migrate` writes them), and two of Quarry's own: the original
 * metadata.json, and where each repository file is in the archive (repository.ts).
 */
import BetterSqlite3 from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY);
CREATE TABLE db_dbuser (
  id INTEGER NOT NULL PRIMARY KEY, email VARCHAR(254) NOT NULL UNIQUE, first_name VARCHAR(254) NOT NULL,
  last_name VARCHAR(254) NOT NULL, institution VARCHAR(254) NOT NULL);
CREATE TABLE db_dbcomputer (
  id INTEGER NOT NULL PRIMARY KEY, uuid CHAR(32) NOT NULL UNIQUE, label VARCHAR(255) NOT NULL UNIQUE,
  hostname VARCHAR(255) NOT NULL, description TEXT NOT NULL, scheduler_type VARCHAR(255) NOT NULL,
  transport_type VARCHAR(255) NOT NULL, metadata JSON NOT NULL);
CREATE TABLE db_dbauthinfo (
  id INTEGER NOT NULL PRIMARY KEY, aiidauser_id INTEGER NOT NULL, dbcomputer_id INTEGER NOT NULL,
  metadata JSON NOT NULL, auth_params JSON NOT NULL, enabled BOOLEAN NOT NULL,
  UNIQUE (aiidauser_id, dbcomputer_id));
CREATE TABLE db_dbgroup (
  id INTEGER NOT NULL PRIMARY KEY, uuid CHAR(32) NOT NULL UNIQUE, label VARCHAR(255) NOT NULL,
  type_string VARCHAR(255) NOT NULL, time DATETIME NOT NULL, description TEXT NOT NULL, extras JSON NOT NULL,
  user_id INTEGER NOT NULL, UNIQUE (label, type_string));
CREATE TABLE db_dbnode (
  id INTEGER NOT NULL PRIMARY KEY, uuid CHAR(32) NOT NULL, node_type VARCHAR(255) NOT NULL,
  process_type VARCHAR(255), label VARCHAR(255) NOT NULL, description TEXT NOT NULL, ctime DATETIME NOT NULL,
  mtime DATETIME NOT NULL, attributes JSON, extras JSON, repository_metadata JSON DEFAULT '{}' NOT NULL,
  dbcomputer_id INTEGER, user_id INTEGER NOT NULL);
CREATE TABLE db_dbcomment (
  id INTEGER NOT NULL PRIMARY KEY, uuid CHAR(32) NOT NULL UNIQUE, dbnode_id INTEGER NOT NULL,
  ctime DATETIME NOT NULL, mtime DATETIME NOT NULL, user_id INTEGER NOT NULL, content TEXT NOT NULL);
CREATE TABLE db_dbgroup_dbnodes (
  id INTEGER NOT NULL PRIMARY KEY, dbnode_id INTEGER NOT NULL, dbgroup_id INTEGER NOT NULL,
  UNIQUE (dbgroup_id, dbnode_id));
CREATE TABLE db_dblink (
  id INTEGER NOT NULL PRIMARY KEY, input_id INTEGER NOT NULL, output_id INTEGER NOT NULL,
  label VARCHAR(255) NOT NULL, type VARCHAR(255) NOT NULL);
CREATE TABLE db_dblog (
  id INTEGER NOT NULL PRIMARY KEY, uuid CHAR(32) NOT NULL UNIQUE, time DATETIME NOT NULL,
  loggername VARCHAR(255) NOT NULL, levelname VARCHAR(50) NOT NULL, dbnode_id INTEGER NOT NULL,
  message TEXT NOT NULL, metadata JSON NOT NULL);
CREATE TABLE quarry_legacy_metadata (metadata TEXT NOT NULL, warnings TEXT NOT NULL);
CREATE TABLE quarry_legacy_files (key TEXT NOT NULL PRIMARY KEY, path TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO alembic_version VALUES ('main_0001');
`;

/** aiida's single-column indexes, made once the rows are in (faster than kept while inserting). */
const INDEXES = `
CREATE INDEX ix_db_dbgroup_dbnodes_db_dbgroup_dbnodes_dbgroup_id ON db_dbgroup_dbnodes (dbgroup_id);
CREATE INDEX ix_db_dbgroup_dbnodes_db_dbgroup_dbnodes_dbnode_id ON db_dbgroup_dbnodes (dbnode_id);
CREATE INDEX ix_db_dblink_db_dblink_label ON db_dblink (label);
CREATE INDEX ix_db_dblink_db_dblink_type ON db_dblink (type);
CREATE INDEX ix_db_dblink_db_dblink_output_id ON db_dblink (output_id);
CREATE INDEX ix_db_dblink_db_dblink_input_id ON db_dblink (input_id);
CREATE INDEX ix_db_dbauthinfo_db_dbauthinfo_aiidauser_id ON db_dbauthinfo (aiidauser_id);
CREATE INDEX ix_db_dbauthinfo_db_dbauthinfo_dbcomputer_id ON db_dbauthinfo (dbcomputer_id);
CREATE INDEX ix_db_dbcomment_db_dbcomment_dbnode_id ON db_dbcomment (dbnode_id);
CREATE INDEX ix_db_dbcomment_db_dbcomment_user_id ON db_dbcomment (user_id);
CREATE INDEX ix_db_dbgroup_db_dbgroup_user_id ON db_dbgroup (user_id);
CREATE INDEX ix_db_dbgroup_db_dbgroup_label ON db_dbgroup (label);
CREATE INDEX ix_db_dbgroup_db_dbgroup_type_string ON db_dbgroup (type_string);
CREATE INDEX ix_db_dblog_db_dblog_dbnode_id ON db_dblog (dbnode_id);
CREATE INDEX ix_db_dblog_db_dblog_levelname ON db_dblog (levelname);
CREATE INDEX ix_db_dblog_db_dblog_loggername ON db_dblog (loggername);
CREATE INDEX ix_db_dbnode_db_dbnode_node_type ON db_dbnode (node_type);
CREATE INDEX ix_db_dbnode_db_dbnode_process_type ON db_dbnode (process_type);
CREATE INDEX ix_db_dbnode_db_dbnode_dbcomputer_id ON db_dbnode (dbcomputer_id);
CREATE INDEX ix_db_dbnode_db_dbnode_label ON db_dbnode (label);
CREATE INDEX ix_db_dbnode_db_dbnode_user_id ON db_dbnode (user_id);
CREATE INDEX ix_db_dbnode_db_dbnode_mtime ON db_dbnode (mtime);
CREATE INDEX ix_db_dbnode_db_dbnode_ctime ON db_dbnode (ctime);
`;

/**
 * db_dbnode's uuid is unique as in aiida's schema, through an index made once the nodes are in: kept while
 * inserting, a million random uuids went into it page by page through a cache a fifth of its size.
 */
export const NODE_UUID_INDEX = 'CREATE UNIQUE INDEX ix_quarry_db_dbnode_uuid ON db_dbnode (uuid)';

export type Copy = BetterSqlite3.Database;

export function createCopy(file: string): Copy {
  const db = new BetterSqlite3(file);
  // A temporary file until it is complete (extract.ts renames it into place): no journal needed.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // 16 MiB: the stage and the copy are open together, and their page caches are most of a conversion's memory.
  db.pragma('cache_size = -16384');
  // Sorts (indexes made, ORDER BY) spill to a file past the page cache instead of growing in memory.
  db.pragma('temp_store = FILE');
  db.exec(SCHEMA);
  return db;
}

export function finishCopy(db: Copy): void {
  db.exec(INDEXES);
  db.pragma('journal_mode = DELETE');
}

/** An INSERT of the row objects' `columns` into `table` (bound by position: faster than by name). */
export function inserter(db: Copy, table: string, columns: string[], orIgnore = false) {
  const statement = db.prepare(
    `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO ${table} (${columns.join(', ')}) VALUES (${columns
      .map(() => '?')
      .join(', ')})`,
  );
  return (row: Record<string, unknown>) => statement.run(columns.map((c) => row[c]));
}
