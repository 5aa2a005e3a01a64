/**
 * data.json's records, staged in a SQLite file of their own as they are read (read-data.ts), so that the
 * version steps (steps-*.ts), which join what data.json keeps apart (a node's record, its attributes, their
 * datetime conversions), read them back by key without holding the whole in memory.
 */
import BetterSqlite3 from 'better-sqlite3';

export type Stage = BetterSqlite3.Database;

/** The entities of export_data, by the names of every version (0.1-0.2 used Django's model paths). */
export const ENTITIES = ['Node', 'User', 'Computer', 'Group', 'Log', 'Comment'] as const;
export type EntityName = (typeof ENTITIES)[number];

export function entityName(key: string): EntityName | undefined {
  const last = key.slice(key.lastIndexOf('.') + 1);
  const name = last.startsWith('Db') ? last.slice(2) : last;
  return (ENTITIES as readonly string[]).includes(name) ? (name as EntityName) : undefined;
}

/** Per-node sections of data.json, keyed by the node's pk. */
export const NODE_SECTIONS = [
  'node_attributes',
  'node_extras',
  'node_attributes_conversion',
  'node_extras_conversion',
] as const;
export type NodeSection = (typeof NODE_SECTIONS)[number];

export function openStage(file: string): Stage {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // 16 MiB: the stage and the copy are open together, and their page caches are most of a conversion's memory.
  db.pragma('cache_size = -16384');
  // Sorts (indexes made, ORDER BY) spill to a file past the page cache instead of growing in memory.
  db.pragma('temp_store = FILE');
  db.exec(`
    CREATE TABLE node (pk INTEGER PRIMARY KEY, uuid TEXT, type TEXT, rec TEXT NOT NULL);
    CREATE TABLE entity (kind TEXT NOT NULL, pk INTEGER NOT NULL, rec TEXT NOT NULL, PRIMARY KEY (kind, pk));
    ${NODE_SECTIONS.map((s) => `CREATE TABLE ${s} (pk INTEGER PRIMARY KEY, rec TEXT NOT NULL);`).join('\n')}
    CREATE TABLE link (seq INTEGER PRIMARY KEY, rec TEXT NOT NULL);
    CREATE TABLE member (seq INTEGER PRIMARY KEY, grp TEXT, node TEXT);
    CREATE TABLE file (seq INTEGER PRIMARY KEY, uuid TEXT NOT NULL, path TEXT NOT NULL, key TEXT);
    CREATE TABLE repo_by_uuid (uuid TEXT NOT NULL, meta TEXT NOT NULL);
    CREATE TABLE repo (pk INTEGER PRIMARY KEY, meta TEXT NOT NULL);
    CREATE TABLE trajectory_symbols (uuid TEXT PRIMARY KEY, symbols TEXT NOT NULL);
  `);
  return db;
}

/** Indexes for the lookups of the steps, made once everything is staged (faster than kept while loading). */
export function indexStage(db: Stage): void {
  db.exec(`
    CREATE INDEX node_uuid ON node (uuid);
    CREATE INDEX file_uuid ON file (uuid, seq);
  `);
}
