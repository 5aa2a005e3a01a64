/**
 * A source's search index: a SQLite file with one row per node (what a result shows and what a search filters
 * on) and an FTS5 table of its words, made from the source's SQLite database in a few statements that SQLite
 * runs alone (the JavaScript side computes only the formulas of structures). The file is Quarry's own, made
 * once and never changed after (an archive's copy never changes); the database it is made from is only read.
 */
import BetterSqlite3 from 'better-sqlite3';
import { cifComposition, structureComposition, type Composition } from './formula.js';

/** What an index holds; a new value makes every index anew (search-indexes.ts reads it first). */
export const INDEX_VERSION = 'search-5';
/** Characters of a description that are searched: its start, where what it is about is said. */
export const DESCRIPTION_CHARS = 500;

const STRUCTURE = 'data.core.structure.StructureData.';
const CIF = 'data.core.cif.CifData.';
/** Node types with a composition in the index (rows in `elements`, a formula, a number of elements). */
export const COMPOSED_TYPES: ReadonlySet<string> = new Set([STRUCTURE, CIF]);

const SCHEMA = [
  // Types by number: a node's type is a small integer here, not 35 characters twice (row and index).
  'CREATE TABLE types (type INTEGER PRIMARY KEY, node_type TEXT NOT NULL UNIQUE, nodes INTEGER)',
  `CREATE TABLE nodes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, type INTEGER NOT NULL, process_type TEXT,
    label TEXT NOT NULL, ctime_ms INTEGER, formula TEXT, nelements INTEGER, space_group INTEGER,
    process_state TEXT, exit_status INTEGER)`,
  'CREATE TABLE elements (id INTEGER NOT NULL, element TEXT NOT NULL, PRIMARY KEY (element, id)) WITHOUT ROWID',
  // The nodes by UUID, for a search by a UUID's start: filled in the order of the source's own UUID index, so
  // that it is made without sorting (an index on nodes.uuid sorted every UUID, a sixth of the index's making).
  'CREATE TABLE uuids (uuid TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (uuid, id)) WITHOUT ROWID',
  'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID',
  // The nodes counted by all a search without words filters on (type, process state and exit status, number of
  // elements, elements): such a search counts its matches and facets in these few rows, not in every node.
  `CREATE TABLE tally (id INTEGER PRIMARY KEY, type INTEGER NOT NULL, process_state TEXT, exit_status INTEGER,
    nelements INTEGER, elements TEXT, nodes INTEGER NOT NULL)`,
  'CREATE TABLE tally_elements (id INTEGER NOT NULL, element TEXT NOT NULL, PRIMARY KEY (id, element)) WITHOUT ROWID',
  // Contentless: what a result shows is read from `nodes`. With each word's place in each column (detail=full):
  // bm25 ranks by how often a word is in a column, which FTS5 does not know without (its score is then 0 for
  // every match, and results came newest first only); the places cost 2 % of the index.
  "CREATE VIRTUAL TABLE words USING fts5(label, description, formula, content='', detail=full, tokenize='unicode61')",
  'CREATE TEMP TABLE compositions (id INTEGER PRIMARY KEY, formula TEXT, nelements INTEGER, space_group INTEGER, elements TEXT, words TEXT)',
];

const INDEXES = [
  'CREATE INDEX nodes_newest ON nodes (ctime_ms DESC, id DESC)',
  // A type's nodes newest first: a search by type reads its first page without sorting every node of it.
  'CREATE INDEX nodes_type ON nodes (type, ctime_ms DESC, id DESC)',
  // Processes only (most nodes are data): a search by state reads them, not every node.
  'CREATE INDEX nodes_state ON nodes (process_state, exit_status) WHERE process_state IS NOT NULL',
  'CREATE INDEX elements_id ON elements (id)',
  // Structures and CIF files only: a search by number of elements reads them, not every node.
  'CREATE INDEX nodes_nelements ON nodes (nelements) WHERE nelements IS NOT NULL',
];

/** Milliseconds since 1970 of a stored datetime (SQLite reads both AiiDA's forms, with or without a zone). */
const CTIME_MS = 'CAST(round((julianday(n.ctime) - 2440587.5) * 86400000.0) AS INTEGER)';

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
    // Index builds sort in memory rather than in temporary files.
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -65536');
    db.prepare('ATTACH ? AS src').run(source);
    for (const sql of SCHEMA) db.exec(sql);
    db.exec('BEGIN');
    keepCompositions(db);
    db.exec('INSERT INTO types (node_type) SELECT DISTINCT node_type FROM src.db_dbnode ORDER BY 1');
    db.exec(
      `INSERT INTO nodes SELECT n.id, n.uuid, t.type, n.process_type, coalesce(n.label, ''), ${CTIME_MS},
        c.formula, c.nelements, c.space_group, ${PROCESS_ATTRIBUTES}
       FROM src.db_dbnode AS n JOIN types AS t ON t.node_type = n.node_type
       LEFT JOIN compositions AS c ON c.id = n.id`,
    );
    db.exec('INSERT INTO uuids SELECT uuid, id FROM src.db_dbnode ORDER BY uuid, id');
    // Only nodes with words: most nodes of a provenance graph (numbers, dictionaries, folders) have no label.
    db.exec(
      `INSERT INTO words (rowid, label, description, formula)
       SELECT n.id, n.label, coalesce(n.description, ''), coalesce(c.words, '') FROM (
         SELECT id, coalesce(label, '') AS label, substr(description, 1, ${DESCRIPTION_CHARS}) AS description
         FROM src.db_dbnode) AS n LEFT JOIN compositions AS c ON c.id = n.id
       WHERE n.label <> '' OR n.description <> '' OR c.words <> ''`,
    );
    for (const sql of INDEXES) db.exec(sql);
    db.exec(
      `INSERT INTO tally (type, process_state, exit_status, nelements, elements, nodes)
       SELECT n.type, n.process_state, n.exit_status, n.nelements, c.elements, count(*)
       FROM nodes AS n LEFT JOIN compositions AS c ON c.id = n.id GROUP BY 1, 2, 3, 4, 5`,
    );
    db.exec(
      'INSERT INTO tally_elements (id, element) SELECT t.id, e.value FROM tally AS t, json_each(t.elements) AS e',
    );
    // The facets of a search without conditions (a portal's first page), kept: read without a statement planned.
    db.exec('UPDATE types SET nodes = (SELECT sum(nodes) FROM tally WHERE tally.type = types.type)');
    db.exec(
      `CREATE TABLE element_counts AS SELECT e.element, sum(t.nodes) AS nodes
       FROM tally_elements AS e JOIN tally AS t ON t.id = e.id GROUP BY e.element`,
    );
    const summary = db
      .prepare(
        `SELECT coalesce(sum(nodes), 0) AS nodes,
           coalesce(sum(nodes * (node_type IN ('${STRUCTURE}', '${CIF}'))), 0) AS structures,
           coalesce(sum(nodes * (node_type LIKE 'process.%')), 0) AS processes FROM types`,
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
    db.exec('DETACH src');
    return summary;
  } finally {
    db.close();
  }
}

/**
 * Formulas and elements of the structures and CIF files. SQLite reads what they need out of the attributes (a
 * structure's kinds and its sites counted by kind, a CIF file's formula and space group), so that no site's
 * position is ever parsed here; each distinct combination of those is computed once here (a relaxation's steps,
 * a data set of one compound repeat theirs) and given to every node that has it by SQLite again, so that no
 * row crosses into JavaScript.
 */
function keepCompositions(db: BetterSqlite3.Database) {
  const types = { structure: STRUCTURE, cif: CIF };
  db.prepare(
    `CREATE TEMP TABLE composed AS SELECT n.id, n.node_type AS type,
       CASE WHEN n.node_type = @structure THEN json_extract(n.attributes, '$.kinds') ELSE json_extract(n.attributes, '$.formulae') END AS first,
       CASE WHEN n.node_type = @structure THEN (SELECT json_group_object(kind, sites) FROM (SELECT s.value ->> '$.kind_name' AS kind,
         count(*) AS sites FROM json_each(n.attributes, '$.sites') AS s GROUP BY kind))
         ELSE json_extract(n.attributes, '$.spacegroup_numbers[0]') END AS second
     FROM src.db_dbnode AS n WHERE n.node_type IN (@structure, @cif)`,
  ).run(types);
  db.exec('CREATE TEMP TABLE combos AS SELECT DISTINCT type, first, second FROM composed');
  db.exec('CREATE INDEX temp.combos_of ON combos (type, first, second)');
  db.exec(
    'CREATE TEMP TABLE found (combo INTEGER PRIMARY KEY, formula TEXT, nelements INTEGER, space_group INTEGER, elements TEXT, words TEXT)',
  );
  // In batches: a connection cannot write while a statement of it still reads.
  const read = db
    .prepare('SELECT rowid, type, first, second FROM combos WHERE rowid > ? ORDER BY rowid LIMIT 1000')
    .raw();
  const insert = db.prepare(
    'INSERT INTO found (combo, formula, nelements, space_group, elements, words) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (let after = 0; ;) {
    const rows = read.all(after) as [number, string, unknown, unknown][];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]![0];
    for (const [combo, type, first, second] of rows) {
      const found = composition(type, first, second);
      if (found === undefined) continue;
      const group = type === CIF && Number.isInteger(second) ? (second as number) : null;
      // The formula and each element are words, so that `GaAs` (written as the index writes it) and `Si O` find it.
      const words = [found.formula ?? '', ...found.elements].join(' ').trim();
      insert.run(combo, found.formula, found.elements.length, group, JSON.stringify(found.elements), words);
    }
  }
  db.exec(
    `INSERT INTO compositions (id, formula, nelements, space_group, elements, words)
     SELECT n.id, f.formula, f.nelements, f.space_group, f.elements, f.words FROM composed AS n
     JOIN combos AS c ON c.type = n.type AND c.first IS n.first AND c.second IS n.second
     JOIN found AS f ON f.combo = c.rowid`,
  );
  db.exec(
    'INSERT INTO elements (id, element) SELECT c.id, e.value FROM compositions AS c, json_each(c.elements) AS e',
  );
  db.exec('DROP TABLE composed');
}

function composition(type: string, first: unknown, second: unknown): Composition | undefined {
  try {
    return type === STRUCTURE
      ? structureComposition(parsed(first), parsed(second))
      : cifComposition(parsed(first));
  } catch {
    return undefined;
  }
}

const parsed = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
