/**
 * A source's search index: a SQLite file with one row per node (what a result shows and what a search filters
 * on) and an FTS5 table of its words, made from the source's SQLite database in a few statements that SQLite
 * runs alone (the JavaScript side computes only the formulas of structures). The file is Quarry's own, made
 * once and never changed after (an archive's copy never changes); the database it is made from is only read.
 */
import BetterSqlite3 from 'better-sqlite3';
import { cifComposition, structureComposition, type Composition } from './formula.js';

/** What an index holds; a new value makes every index anew (search-indexes.ts reads it first). */
export const INDEX_VERSION = 'search-1';
/** Characters of a description that are searched: its start, where what it is about is said. */
export const DESCRIPTION_CHARS = 500;

const STRUCTURE = 'data.core.structure.StructureData.';
const CIF = 'data.core.cif.CifData.';

const SCHEMA = [
  `CREATE TABLE nodes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, node_type TEXT NOT NULL, process_type TEXT,
    label TEXT NOT NULL, ctime TEXT, ctime_ms INTEGER, formula TEXT, nelements INTEGER, space_group INTEGER,
    process_state TEXT, exit_status INTEGER)`,
  'CREATE TABLE elements (id INTEGER NOT NULL, element TEXT NOT NULL, PRIMARY KEY (element, id)) WITHOUT ROWID',
  'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID',
  // Contentless: the words are only looked up, what a result shows is read from `nodes`.
  "CREATE VIRTUAL TABLE words USING fts5(label, description, kind, formula, content='', tokenize='unicode61')",
  'CREATE TEMP TABLE compositions (id INTEGER PRIMARY KEY, formula TEXT, nelements INTEGER, space_group INTEGER, words TEXT)',
];

const INDEXES = [
  'CREATE INDEX nodes_uuid ON nodes (uuid)',
  'CREATE INDEX nodes_newest ON nodes (ctime_ms DESC, id DESC)',
  'CREATE INDEX nodes_type ON nodes (node_type)',
  'CREATE INDEX elements_id ON elements (id)',
];

/** Milliseconds since 1970 of a stored datetime (SQLite reads both AiiDA's forms, with or without a zone). */
const CTIME_MS = 'CAST(round((julianday(n.ctime) - 2440587.5) * 86400000.0) AS INTEGER)';
/** A node type's class (`StructureData`), its last segment. */
const CLASS = `substr(rtrim(n.node_type, '.'), length(rtrim(rtrim(n.node_type, '.'), replace(rtrim(n.node_type, '.'), '.', ''))) + 1)`;

const PROCESS_ATTRIBUTES =
  "CASE WHEN n.node_type LIKE 'process.%' THEN json_extract(n.attributes, '$.process_state') END, " +
  "CASE WHEN n.node_type LIKE 'process.%' THEN json_extract(n.attributes, '$.exit_status') END";

export interface IndexSummary {
  nodes: number;
  structures: number;
  processes: number;
}

/**
 * Writes the index of the database `source` into `out` (a new file). `meta` is kept with it (the archive's
 * size, versions). Throws where the source is no AiiDA database.
 */
export function buildIndex(source: string, out: string, meta: Record<string, string> = {}): IndexSummary {
  const db = new BetterSqlite3(out);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.prepare('ATTACH ? AS src').run(source);
    for (const sql of SCHEMA) db.exec(sql);
    db.exec('BEGIN');
    keepCompositions(db);
    db.exec(
      `INSERT INTO nodes SELECT n.id, n.uuid, n.node_type, n.process_type, coalesce(n.label, ''), n.ctime, ${CTIME_MS},
        c.formula, c.nelements, c.space_group, ${PROCESS_ATTRIBUTES}
       FROM src.db_dbnode AS n LEFT JOIN compositions AS c ON c.id = n.id`,
    );
    db.exec(
      `INSERT INTO words (rowid, label, description, kind, formula)
       SELECT n.id, coalesce(n.label, ''), substr(coalesce(n.description, ''), 1, ${DESCRIPTION_CHARS}),
         ${CLASS} || ' ' || coalesce(n.process_type, '') || coalesce(' ' || CASE WHEN n.node_type LIKE 'process.%'
           THEN json_extract(n.attributes, '$.process_label') END, ''),
         coalesce(c.words, '')
       FROM src.db_dbnode AS n LEFT JOIN compositions AS c ON c.id = n.id`,
    );
    for (const sql of INDEXES) db.exec(sql);
    const summary = db
      .prepare(
        `SELECT count(*) AS nodes, coalesce(sum(node_type IN ('${STRUCTURE}', '${CIF}')), 0) AS structures,
           coalesce(sum(node_type LIKE 'process.%'), 0) AS processes FROM nodes`,
      )
      .get() as IndexSummary;
    const keep = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    for (const [key, value] of Object.entries({
      ...meta,
      version: INDEX_VERSION,
      nodes: String(summary.nodes),
      structures: String(summary.structures),
      processes: String(summary.processes),
    })) {
      keep.run(key, value);
    }
    db.exec('COMMIT');
    db.exec("INSERT INTO words (words) VALUES ('optimize')");
    db.exec('DETACH src');
    return summary;
  } finally {
    db.close();
  }
}

/** Formulas and elements of the structures and CIF files, computed from their attributes. */
function keepCompositions(db: BetterSqlite3.Database) {
  // In batches: a connection cannot write while a statement of it still reads.
  const read = db
    .prepare(
      'SELECT id, node_type, attributes FROM src.db_dbnode WHERE node_type IN (?, ?) AND id > ? ORDER BY id LIMIT 1000',
    )
    .raw();
  const insert = db.prepare(
    'INSERT INTO compositions (id, formula, nelements, space_group, words) VALUES (?, ?, ?, ?, ?)',
  );
  const element = db.prepare('INSERT OR IGNORE INTO elements (id, element) VALUES (?, ?)');
  for (let after = -Infinity; ;) {
    const rows = read.all(STRUCTURE, CIF, after) as [number, string, unknown][];
    if (rows.length === 0) return;
    after = rows[rows.length - 1]![0];
    for (const [id, type, text] of rows) keepComposition(id, type, text, insert, element);
  }
}

function keepComposition(
  id: number,
  type: string,
  text: unknown,
  insert: BetterSqlite3.Statement,
  element: BetterSqlite3.Statement,
) {
  {
    let attributes: Record<string, unknown>;
    try {
      attributes = (typeof text === 'string' ? JSON.parse(text) : {}) ?? {};
    } catch {
      return;
    }
    const found: Composition | undefined =
      type === STRUCTURE ? structureComposition(attributes) : cifComposition(attributes);
    if (found === undefined) return;
    const groups = type === CIF ? attributes.spacegroup_numbers : undefined;
    const group = Array.isArray(groups) && Number.isInteger(groups[0]) ? (groups[0] as number) : null;
    // The formula and each element are words, so that `GaAs` (written as the index writes it) and `Si O` find it.
    const words = [found.formula ?? '', ...found.elements].join(' ').trim();
    insert.run(id, found.formula, found.elements.length, group, words);
    for (const symbol of found.elements) element.run(id, symbol);
  }
}
