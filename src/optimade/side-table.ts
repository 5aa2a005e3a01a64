/**
 * A source's structures as OPTIMADE sees them, computed once into a SQLite file of Quarry's own (the side
 * table), with an index on every property a filter or a sort reads: filters run as SQL on indexed columns,
 * never by reading every structure per request. The served data is never written.
 *
 * The file lives in the source's cache folder (`optimade/`): for an archive it is named by the archive's
 * identity, so a changed archive gets a new one; for a live profile it is named by the source and holds the data
 * version it was built at, and is built again when that version moves. A file is written under a temporary
 * name and renamed into place, so a crash leaves no half-built table under the final name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import type { Database, StorageBackend } from '../storage/types.js';
import { entryOf, type StructureNode, type StructureProperties } from './structure-entry.js';
import { timestampMicros } from './timestamps.js';
import { elementMask } from './element-masks.js';

/** Changing the table's columns or how properties are computed changes this, and so the file names. */
const LAYOUT = 'optimade-3';
const BATCH = 5_000;
/** Structures computed and written between two turns of the event loop (about 50 ms). */
const WRITE_SLICE = 1_000;
export const STRUCTURE_TYPE = 'data.core.structure.StructureData.';

/** Scalar properties kept as columns, each with its index. */
export const SCALAR_COLUMNS = [
  'uuid',
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
] as const;
/** List properties kept as JSON arrays (queried through json_each); `elements` also has its own table. */
export const LIST_COLUMNS = [
  'elements',
  'elements_ratios',
  'dimension_types',
  'structure_features',
  'species_at_sites',
] as const;

const SCHEMA = [
  `CREATE TABLE structures (
     sid INTEGER PRIMARY KEY, uuid TEXT NOT NULL, last_modified INTEGER NOT NULL, nelements INTEGER NOT NULL,
     nsites INTEGER NOT NULL, nperiodic_dimensions INTEGER NOT NULL, chemical_formula_descriptive TEXT NOT NULL,
     chemical_formula_reduced TEXT NOT NULL, chemical_formula_hill TEXT, chemical_formula_anonymous TEXT NOT NULL,
     label TEXT NOT NULL, creator TEXT, elements TEXT NOT NULL, elements_ratios TEXT NOT NULL,
     dimension_types TEXT NOT NULL, structure_features TEXT NOT NULL, species_at_sites TEXT NOT NULL,
     mask_lo INTEGER NOT NULL, mask_hi INTEGER NOT NULL, mask_unknown INTEGER NOT NULL)`,
  'CREATE TABLE side_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  // The query pool checks that a file is a database by reading one node id; this lets it check this one.
  'CREATE VIEW db_dbnode AS SELECT sid AS id FROM structures',
];

const INDEXES = [
  'CREATE UNIQUE INDEX structures_uuid ON structures (uuid)',
  ...SCALAR_COLUMNS.filter((c) => c !== 'uuid').map(
    (c) => `CREATE INDEX structures_${c} ON structures (${c}, sid)`,
  ),
  // HAS ALL/ANY/ONLY on elements, alone or with nelements, read from these indexes only (element-masks.ts).
  'CREATE INDEX structures_nelements_masks ON structures (nelements, mask_lo, mask_hi, mask_unknown, sid)',
  'CREATE INDEX structures_masks ON structures (mask_lo, mask_hi, mask_unknown, sid)',
];

/** A built side table, open for queries. */
export interface SideTable {
  readonly db: Database;
  /** The data version it was built at (live sources), or the archive identity. */
  readonly version: string;
  readonly count: number;
  close(): Promise<void>;
}

const COLUMNS =
  'SELECT n.id, n.uuid, n.label, n.mtime, n.attributes, ' +
  "(SELECT c.uuid FROM db_dblink AS l JOIN db_dbnode AS c ON c.id = l.input_id WHERE l.output_id = n.id AND l.type = 'create' ORDER BY c.id LIMIT 1) AS creator " +
  'FROM db_dbnode AS n';

const placeholder = (backend: StorageBackend, i: number) =>
  backend.db.dialect === 'postgres' ? `$${i}` : '?';

/** The structures of `backend` read in pages of BATCH, by pk: the query a build runs, in both dialects. */
function structuresAfter(backend: StorageBackend, after: number) {
  const p = (i: number) => placeholder(backend, i);
  return {
    sql: `${COLUMNS} WHERE n.node_type = ${p(1)} AND n.id > ${p(2)} ORDER BY n.id LIMIT ${p(3)}`,
    params: [STRUCTURE_TYPE, after, BATCH],
  };
}

/** The structures of the pks `pks`, as a page of answers reads them from the source (any order). */
export function structuresByPk(backend: StorageBackend, pks: number[]) {
  const list = pks.map((_, i) => placeholder(backend, i + 2)).join(', ');
  return {
    sql: `${COLUMNS} WHERE n.node_type = ${placeholder(backend, 1)} AND n.id IN (${list})`,
    params: [STRUCTURE_TYPE, ...pks],
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

/** Builds the side table of `backend` into `target` (through a temporary file); returns the structures' count. */
async function build(backend: StorageBackend, target: string, version: string): Promise<number> {
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  const out = new BetterSqlite3(temp);
  let count = 0;
  let skipped = 0;
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    for (const sql of SCHEMA) out.exec(sql);
    const insert = out.prepare(`INSERT INTO structures VALUES (${new Array(20).fill('?').join(', ')})`);
    const write = out.transaction((rows: unknown[][]) => {
      for (const row of rows) {
        const entry = entryOf(nodeOf(row));
        if (entry === undefined) skipped += 1;
        else insert.run(rowOf(entry));
      }
    });
    // The next batch is read (in the storage's query process or database) while this one is computed.
    const read = (after: number) => {
      const rows = backend.db.values(structuresAfter(backend, after));
      // Awaited at the next turn; until then a failure must not count as unhandled.
      rows.catch(() => undefined);
      return rows;
    };
    let next = read(-1);
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      const after = Number(rows[rows.length - 1]![0]);
      next = rows.length < BATCH ? Promise.resolve([]) : read(after);
      // Written a slice at a time, so that requests keep being answered while a table is built.
      for (let i = 0; i < rows.length; i += WRITE_SLICE) {
        write(rows.slice(i, i + WRITE_SLICE));
        await new Promise((resolve) => setImmediate(resolve));
      }
      count += rows.length;
    }
    for (const sql of INDEXES) out.exec(sql);
    out
      .prepare('INSERT INTO side_meta VALUES (?, ?), (?, ?), (?, ?)')
      .run('version', version, 'count', String(count - skipped), 'skipped', String(skipped));
    out.exec('ANALYZE');
    out.close();
    await rename(temp, target);
    return count - skipped;
  } catch (error) {
    if (out.open) out.close();
    await rm(temp, { force: true });
    throw error;
  }
}

function rowOf(e: StructureProperties): unknown[] {
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
    ...maskColumns(e.elements),
  ];
}

function maskColumns(elements: string[]): unknown[] {
  const mask = elementMask(elements);
  return [mask.lo, mask.hi, mask.unknown ? 1 : 0];
}

function fileName(backend: StorageBackend): string {
  const label = backend.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  const key = backend.identity ?? `${backend.kind}\0${backend.name}`;
  return `${label}-${createHash('sha256').update(`${key}\0${LAYOUT}`).digest('hex').slice(0, 24)}.sqlite3`;
}

function readMeta(file: string): { version: string; count: number } | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT key, value FROM side_meta').all() as { key: string; value: string }[];
      const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
      return meta.version === undefined ? undefined : { version: meta.version, count: Number(meta.count) };
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

export interface SideTableOptions {
  /** Where the file goes (default: the source's cache folder, else Quarry's). */
  cacheDir?: string;
  queryTimeoutMs?: number;
}

/**
 * The side table of `backend` at `version` (the archive identity, or the live data version now): the file
 * already built for it, or a new one.
 */
export async function openSideTable(
  backend: StorageBackend,
  version: string,
  options: SideTableOptions = {},
): Promise<SideTable> {
  const dir = join(options.cacheDir ?? defaultCacheDir(), 'optimade');
  await mkdir(dir, { recursive: true });
  const target = join(dir, fileName(backend));
  let meta = readMeta(target);
  if (meta?.version !== version) {
    // A live table is replaced: the new one is renamed over it, and the pool of the old one keeps its file.
    const count = await build(backend, target, version);
    meta = { version, count };
    await removeStaleTemps(dir);
  }
  const db = await SqlitePool.open(target, { timeoutMs: options.queryTimeoutMs, unchanging: true });
  return { db, version, count: meta.count, close: () => db.close() };
}

const STALE_TEMP_MS = 24 * 3600 * 1000;

async function removeStaleTemps(dir: string): Promise<void> {
  try {
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.tmp')) continue;
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > STALE_TEMP_MS) await rm(join(dir, name), { force: true });
    }
  } catch {
    // Tidying is a courtesy only.
  }
}
