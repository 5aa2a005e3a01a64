/**
 * What a side table holds (side-table.ts) and how its rows are made from a source's nodes: the schema, the
 * query that reads structures in both dialects, a node's row, and the indexes added once every row is in.
 * Used in the serving thread and in the build's worker threads (side-build-worker.ts) alike, so that a table
 * is the same whichever built it.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { StorageBackend } from '../storage/types.js';
import { entryOf, type StructureNode, type StructureProperties } from './structure-entry.js';
import { timestampMicros } from './timestamps.js';
import { elementMask } from './element-masks.js';
import { CIF_TYPE } from './cif-sites.js';

export const STRUCTURE_TYPE = 'data.core.structure.StructureData.';
/** Structures read per statement. */
export const BATCH = 5_000;

/** Scalar properties kept as columns, each with its index. */
const SCALAR_COLUMNS = [
  'last_modified',
  'nelements',
  'nsites',
  'nperiodic_dimensions',
  'chemical_formula_descriptive',
  'chemical_formula_reduced',
  'chemical_formula_hill',
  'chemical_formula_anonymous',
  'label',
  'creator',
  'space_group_it_number',
  'space_group_symbol_hermann_mauguin',
  'space_group_symbol_hall',
] as const;

/** The scalar columns the symmetry pass fills (side-symmetry.ts), indexed once they are. */
export const SYMMETRY_SCALARS = [
  'space_group_it_number',
  'space_group_symbol_hermann_mauguin',
  'space_group_symbol_hall',
] as const;

/** Integer columns whose structures are counted per value (side_counts); the space group's at the symmetry pass. */
export const COUNTED_COLUMNS = ['nelements', 'nsites', 'nperiodic_dimensions', 'space_group_it_number'];
const isSymmetry = (column: string) => (SYMMETRY_SCALARS as readonly string[]).includes(column);

/** The table of structures, alone: what a part of a build (side-build.ts) writes before the parts are joined. */
export const STRUCTURES_TABLE = `CREATE TABLE structures (
  sid INTEGER PRIMARY KEY, uuid TEXT NOT NULL, last_modified INTEGER NOT NULL, nelements INTEGER NOT NULL,
  nsites INTEGER NOT NULL, nperiodic_dimensions INTEGER NOT NULL, chemical_formula_descriptive TEXT NOT NULL,
  chemical_formula_reduced TEXT NOT NULL, chemical_formula_hill TEXT, chemical_formula_anonymous TEXT NOT NULL,
  label TEXT NOT NULL, creator TEXT, elements TEXT NOT NULL, elements_ratios TEXT NOT NULL,
  dimension_types TEXT NOT NULL, structure_features TEXT NOT NULL, species_at_sites TEXT NOT NULL,
  mask_lo INTEGER NOT NULL, mask_hi INTEGER NOT NULL, mask_unknown INTEGER NOT NULL,
  space_group_it_number INTEGER, space_group_symbol_hermann_mauguin TEXT, space_group_symbol_hall TEXT,
  space_group_symmetry_operations_xyz TEXT, wyckoff_positions TEXT)`;

/** The columns a page reads from the side table (the symmetry found once, at its second pass), by `sid`. */
export const SYMMETRY_COLUMNS = [
  'space_group_it_number',
  'space_group_symbol_hermann_mauguin',
  'space_group_symbol_hall',
  'space_group_symmetry_operations_xyz',
  'wyckoff_positions',
] as const;

const SCHEMA = [
  STRUCTURES_TABLE,
  'CREATE TABLE side_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  'CREATE TABLE side_counts (property TEXT NOT NULL, value INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (property, value)) WITHOUT ROWID',
  // The query pool checks that a file is a database by reading one node id; this lets it check this one.
  'CREATE VIEW db_dbnode AS SELECT sid AS id FROM structures',
];

const INDEXES = [
  'CREATE UNIQUE INDEX structures_uuid ON structures (uuid)',
  // Each index ends with the rowid (sid), so it also orders `ORDER BY c, sid` with no column for it.
  ...SCALAR_COLUMNS.filter((c) => !isSymmetry(c)).map(scalarIndex),
  // HAS ALL/ANY/ONLY on elements, alone or with nelements, read from these indexes only (element-masks.ts).
  'CREATE INDEX structures_nelements_masks ON structures (nelements, mask_lo, mask_hi, mask_unknown)',
  'CREATE INDEX structures_masks ON structures (mask_lo, mask_hi, mask_unknown)',
];

function scalarIndex(column: string): string {
  return `CREATE INDEX structures_${column} ON structures (${column})`;
}

/** The indexes on the symmetry columns, built once the symmetry pass has filled them. */
export const SYMMETRY_INDEXES = SYMMETRY_SCALARS.map(scalarIndex);

const COLUMNS =
  'SELECT n.id, n.uuid, n.label, n.mtime, n.attributes, ' +
  "(SELECT c.uuid FROM db_dblink AS l JOIN db_dbnode AS c ON c.id = l.input_id WHERE l.output_id = n.id AND l.type = 'create' ORDER BY c.id LIMIT 1) AS creator, " +
  'n.node_type, n.repository_metadata FROM db_dbnode AS n';

const placeholder = (dialect: 'sqlite' | 'postgres', i: number) => (dialect === 'postgres' ? `$${i}` : '?');

/**
 * The structures with pks after `after` (and up to `upTo`), BATCH at most, by pk: the query a build runs, in
 * both dialects.
 */
export function structuresAfter(
  dialect: 'sqlite' | 'postgres',
  after: number,
  upTo?: number,
  type = STRUCTURE_TYPE,
) {
  const p = (i: number) => placeholder(dialect, i);
  const bounded = upTo !== undefined;
  return {
    sql: `${COLUMNS} WHERE n.node_type = ${p(1)} AND n.id > ${p(2)}${bounded ? ` AND n.id <= ${p(3)}` : ''} ORDER BY n.id LIMIT ${p(bounded ? 4 : 3)}`,
    params: bounded ? [type, after, upTo, BATCH] : [type, after, BATCH],
  };
}

/** The structures of the pks `pks`, as a page of answers reads them from the source (any order). */
export function structuresByPk(backend: StorageBackend, pks: number[]) {
  const dialect = backend.db.dialect;
  const list = pks.map((_, i) => placeholder(dialect, i + 3)).join(', ');
  return {
    sql: `${COLUMNS} WHERE n.node_type IN (${placeholder(dialect, 1)}, ${placeholder(dialect, 2)}) AND n.id IN (${list})`,
    params: [STRUCTURE_TYPE, CIF_TYPE, ...pks],
  };
}

/** A row of COLUMNS as values, in their order. */
export function nodeOf(row: unknown[]): StructureNode {
  const [id, uuid, label, mtime, attributes, creator] = row;
  const parsed = typeof attributes === 'string' ? JSON.parse(attributes) : attributes;
  return {
    pk: Number(id),
    uuid: String(uuid),
    label: String(label ?? ''),
    mtime: String(mtime),
    attributes: (parsed ?? {}) as Record<string, unknown>,
    creator: creator === null || creator === undefined ? null : String(creator),
  };
}

function rowOf(e: StructureProperties): unknown[] {
  const mask = elementMask(e.elements);
  return [
    e._quarry_pk,
    e.immutable_id,
    timestampMicros(e.last_modified) ?? 0,
    e.nelements,
    e.nsites,
    e.nperiodic_dimensions,
    e.chemical_formula_descriptive,
    e.chemical_formula_reduced,
    e.chemical_formula_hill,
    e.chemical_formula_anonymous,
    e._quarry_label,
    e._quarry_creator,
    JSON.stringify(e.elements),
    JSON.stringify(e.elements_ratios),
    JSON.stringify(e.dimension_types),
    JSON.stringify(e.structure_features),
    JSON.stringify(e.species_at_sites),
    mask.lo,
    mask.hi,
    mask.unknown ? 1 : 0,
    // The symmetry columns, filled by the second pass (side-symmetry.ts).
    ...SYMMETRY_COLUMNS.map(() => null),
  ];
}

/** Writes rows of COLUMNS into a file's `structures` table, a transaction per call. */
export class RowWriter {
  count = 0;
  skipped = 0;
  private readonly write: (rows: unknown[][]) => void;

  constructor(out: BetterSqlite3.Database) {
    const insert = out.prepare(`INSERT INTO structures VALUES (${new Array(25).fill('?').join(', ')})`);
    this.write = out.transaction((rows: unknown[][]) => {
      for (const row of rows) {
        // A node whose attributes are not a structure AiiDA could store is left out, not allowed to stop the table.
        const entry = entryOf(nodeOf(row));
        if (entry === undefined) this.skipped += 1;
        else {
          insert.run(rowOf(entry));
          this.count += 1;
        }
      }
    });
  }

  add(rows: unknown[][]): void {
    this.write(rows);
  }
}

/**
 * A connection to a file being built, set to write fast: it is a temporary file until renamed into place,
 * never a served one. `schema`: the tables to create in it (none: they are there).
 */
export function openOut(file: string, schema: 'whole' | 'part' | 'none'): BetterSqlite3.Database {
  const out = new BetterSqlite3(file);
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    // Sorting for the indexes in memory rather than in temporary files: a few times faster.
    out.pragma('cache_size = -262144');
    out.pragma('temp_store = MEMORY');
    if (schema !== 'none') for (const sql of schema === 'whole' ? SCHEMA : [STRUCTURES_TABLE]) out.exec(sql);
    return out;
  } catch (error) {
    out.close();
    throw error;
  }
}

/**
 * The table made whole: the parts' rows copied in (files written by RowWriters), the indexes built once over
 * every row, its version and counts recorded. Its symmetry is still to be found (side-symmetry.ts).
 */
export function finishTable(
  out: BetterSqlite3.Database,
  parts: string[],
  meta: { version: string; count: number; skipped: number },
): void {
  parts.forEach((file, i) => {
    out.prepare(`ATTACH DATABASE ? AS part${i}`).run(file);
    out.exec(`INSERT INTO structures SELECT * FROM part${i}.structures ORDER BY sid`);
    out.exec(`DETACH DATABASE part${i}`);
  });
  for (const sql of INDEXES) out.exec(sql);
  out
    .prepare('INSERT INTO side_meta VALUES (?, ?), (?, ?), (?, ?), (?, ?)')
    .run(
      'version',
      meta.version,
      'count',
      String(meta.count),
      'skipped',
      String(meta.skipped),
      'symmetry',
      'pending',
    );
  // How many structures have each value of the columns that few values share: a filter on one of them alone
  // is counted from here (data_returned) instead of from the whole range of an index (structures.ts).
  for (const column of COUNTED_COLUMNS.filter((c) => !isSymmetry(c)))
    out.exec(
      `INSERT INTO side_counts SELECT '${column}', ${column}, count(*) FROM structures WHERE ${column} IS NOT NULL GROUP BY ${column}`,
    );
  // Statistics from a sample of each index: the planner needs their shape, not exact counts (a full ANALYZE
  // of 10^6 rows took as long as building two indexes).
  out.pragma('analysis_limit = 1000');
  out.exec('ANALYZE');
}
