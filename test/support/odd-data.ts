/**
 * Nodes holding odd values, stored as AiiDA's Python writes them (attributes as json.dumps text): whole-number
 * floats, integers past 2^53, arrays with NaN and infinities, structures whose cells have zero vectors, an
 * empty repository file. Served as an archive, as a core.sqlite_dos folder and (added to a restored
 * profile) from PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ARCHIVE_TABLES } from '../../src/domain/sqlite-zip-schema.js';
import { zipOf } from '../storage-fixtures.js';

/** A float64 (`<f8`) or int64 (`<i8`) .npy file of one dimension. */
export function npy(values: number[], type: '<f8' | '<i8' = '<f8'): Buffer {
  let header = `{'descr': '${type}', 'fortran_order': False, 'shape': (${values.length},), }`;
  header = header.padEnd(64 - 10 - 1, ' ') + '\n';
  const body = Buffer.alloc(values.length * 8);
  values.forEach((v, i) =>
    type === '<f8' ? body.writeDoubleLE(v, i * 8) : body.writeBigInt64LE(BigInt(v), i * 8),
  );
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head.writeUInt8(1, 6);
  head.writeUInt8(0, 7);
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

export interface OddNode {
  uuid: string;
  nodeType: string;
  /** Attributes and extras as the JSON text stored. */
  attributes: string;
  extras: string;
  files: Record<string, Buffer>;
}

const structure = (cell: number[][], pbc: boolean[], sites: [string, number[]][]) =>
  JSON.stringify({
    cell,
    pbc1: pbc[0],
    pbc2: pbc[1],
    pbc3: pbc[2],
    kinds: [...new Set(sites.map(([s]) => s))].map((s) => ({ name: s, symbols: [s], weights: [1.0] })),
    sites: sites.map(([kind_name, position]) => ({ position, kind_name })),
  })
    // Python writes the floats of a cell and positions with their point.
    .replace(/(?<![\d.e])(-?\d+)(?=[,\]])/g, '$1.0');

export const ODD: Record<string, OddNode> = {
  dict: {
    uuid: 'a0d0d000-0000-4000-8000-000000000001',
    nodeType: 'data.core.dict.Dict.',
    attributes:
      '{"ecutrho": 240.0, "ecutwfc": 60, "big": 12345678901234567890, "zero": -0.0, "huge": 1e+16, ' +
      '"list": [1.0, 2.5, 3], "nested": {"x": 0.0, "y": 1.5}}',
    extras: '{"weight": 3.0, "count": 2}',
    files: {},
  },
  array: {
    uuid: 'a0d0d000-0000-4000-8000-000000000002',
    nodeType: 'data.core.array.ArrayData.',
    attributes: '{"array|values": [5], "array|ints": [2]}',
    extras: '{}',
    files: { 'values.npy': npy([1.0, NaN, Infinity, -Infinity, 2.5]), 'ints.npy': npy([1, 2], '<i8') },
  },
  molecule: {
    uuid: 'a0d0d000-0000-4000-8000-000000000003',
    nodeType: 'data.core.structure.StructureData.',
    attributes: structure(
      [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ],
      [false, false, false],
      [
        ['O', [0.1, -0.2, 0.3]],
        ['H', [0, 0, 0.74]],
      ],
    ),
    extras: '{}',
    files: {},
  },
  wire: {
    uuid: 'a0d0d000-0000-4000-8000-000000000004',
    nodeType: 'data.core.structure.StructureData.',
    attributes: structure(
      [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 2.5],
      ],
      [false, false, true],
      [['C', [1, 2, 1.25]]],
    ),
    extras: '{}',
    files: {},
  },
  slab: {
    uuid: 'a0d0d000-0000-4000-8000-000000000005',
    nodeType: 'data.core.structure.StructureData.',
    attributes: structure(
      [
        [3, 0, 0],
        [0, 4, 0],
        [0, 0, 0],
      ],
      [true, true, false],
      [['Mo', [1.5, 2, 7]]],
    ),
    extras: '{}',
    files: {},
  },
  mesh: {
    uuid: 'a0d0d000-0000-4000-8000-000000000007',
    nodeType: 'data.core.array.kpoints.KpointsData.',
    attributes: '{"mesh": [2, 2, 2], "offset": [0.0, 0.0, 0.0]}',
    extras: '{}',
    files: {},
  },
  folder: {
    uuid: 'a0d0d000-0000-4000-8000-000000000006',
    nodeType: 'data.core.folder.FolderData.',
    attributes: '{}',
    extras: '{}',
    files: { 'empty.txt': Buffer.alloc(0), 'a.txt': Buffer.from('hi') },
  },
};

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function repositoryMetadata(files: Record<string, Buffer>): string {
  const o: Record<string, { k: string }> = {};
  for (const [name, content] of Object.entries(files)) o[name] = { k: sha256(content) };
  return Object.keys(o).length === 0 ? '{}' : JSON.stringify({ o });
}

const allFiles = () => Object.values(ODD).flatMap((n) => Object.values(n.files));

/** The node table's values of every odd node, in the archive schema's column order from `uuid` on. */
function rows(userId: number): unknown[][] {
  const time = '2023-01-02 03:04:05.000000';
  return Object.values(ODD).map((n) => [
    n.uuid,
    n.nodeType,
    null,
    '',
    '',
    time,
    time,
    n.attributes,
    n.extras,
    repositoryMetadata(n.files),
    null,
    userId,
  ]);
}

/** A database of the archive schema with one user and the odd nodes. */
export function oddDatabase(file: string): void {
  const db = new BetterSqlite3(file);
  for (const sql of ARCHIVE_TABLES) db.exec(sql);
  db.prepare('INSERT INTO db_dbuser VALUES (1, ?, ?, ?, ?)').run('odd@example.org', 'Odd', 'Values', 'Q');
  const insert = db.prepare(`INSERT INTO db_dbnode VALUES (${new Array(13).fill('?').join(',')})`);
  rows(1).forEach((row, i) => insert.run(i + 1, ...row));
  db.close();
}

export async function oddArchive(dir: string): Promise<string> {
  const dbFile = join(dir, 'db.sqlite3');
  oddDatabase(dbFile);
  const metadata = { export_version: 'main_0001', aiida_version: '2.3.1', key_format: 'sha256' };
  const entries: Record<string, Buffer | string> = {
    'metadata.json': JSON.stringify(metadata),
    'db.sqlite3': readFileSync(dbFile),
  };
  for (const content of allFiles()) entries[`repo/${sha256(content)}`] = content;
  return zipOf(entries, 'odd.aiida');
}

/** A disk-objectstore container holding the odd nodes' files as loose objects. */
export function oddContainer(folder: string): string {
  mkdirSync(join(folder, 'loose'), { recursive: true });
  writeFileSync(
    join(folder, 'config.json'),
    JSON.stringify({ container_version: 1, loose_prefix_len: 2, hash_type: 'sha256', container_id: 'odd' }),
  );
  for (const content of allFiles()) {
    const key = sha256(content);
    mkdirSync(join(folder, 'loose', key.slice(0, 2)), { recursive: true });
    writeFileSync(join(folder, 'loose', key.slice(0, 2), key.slice(2)), content);
  }
  return folder;
}

export function oddSqliteDos(dir: string): string {
  const folder = join(dir, 'sqlite_dos');
  mkdirSync(folder);
  oddDatabase(join(folder, 'database.sqlite'));
  oddContainer(join(folder, 'container'));
  return folder;
}

/** SQL adding the odd nodes to a core.psql_dos database (attributes as JSONB, from the same texts). */
export function oddPostgresInsert(): string {
  const literal = (v: unknown) => (v === null ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`);
  const values = rows(0).map((row) => {
    const [uuid, type, ptype, label, description, ctime, mtime, attributes, extras, repo] = row.map(literal);
    return (
      `(${uuid}, ${type}, ${ptype}, ${label}, ${description}, ${ctime}, ${mtime}, ${attributes}::jsonb, ` +
      `${extras}::jsonb, ${repo}::jsonb, NULL, (SELECT min(id) FROM db_dbuser))`
    );
  });
  return (
    'INSERT INTO db_dbnode (uuid, node_type, process_type, label, description, ctime, mtime, attributes, ' +
    `extras, repository_metadata, dbcomputer_id, user_id) VALUES ${values.join(', ')};`
  );
}
