/**
 * Archives of structures that are costly or malformed, beside an intact one: many sites at one position
 * (moyo's search takes minutes on them), a supercell of one element whose search outlasts its budget, and
 * StructureData (and other nodes) whose attributes have the wrong shapes. Written as an AiiDA 2.x archive.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ARCHIVE_TABLES } from '../../src/domain/sqlite-zip-schema.js';
import { zipOf } from '../storage-fixtures.js';

export const STRUCTURE = 'data.core.structure.StructureData.';

export interface HostileNode {
  uuid: string;
  nodeType: string;
  /** The attributes as the JSON text stored. */
  attributes: string;
}

/** A cubic cell of edge `a` with sites of one element at fractional positions `at`. */
export function cubic(a: number, symbol: string, at: number[][]): Record<string, unknown> {
  return {
    cell: [
      [a, 0, 0],
      [0, a, 0],
      [0, 0, a],
    ],
    pbc1: true,
    pbc2: true,
    pbc3: true,
    kinds: [{ name: symbol, symbols: [symbol], weights: [1.0], mass: 28.085 }],
    sites: at.map((f) => ({ kind_name: symbol, position: f.map((x) => x * a) })),
  };
}

/** `n` sites at one position. */
export const coincident = (n: number) =>
  cubic(
    5,
    'Fe',
    Array.from({ length: n }, () => [0.1, 0.2, 0.3]),
  );

/** A k×k×k supercell of a simple cubic cell: one element on every site, moyo's slowest case. */
export function supercell(k: number): Record<string, unknown> {
  const at: number[][] = [];
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) for (let l = 0; l < k; l++) at.push([i / k, j / k, l / k]);
  return cubic(2.5 * k, 'Po', at);
}

/** Diamond silicon, space group 227. */
export const silicon = () =>
  cubic(5.43, 'Si', [
    [0, 0, 0],
    [0.25, 0.25, 0.25],
    [0.5, 0.5, 0],
    [0.75, 0.75, 0.25],
    [0.5, 0, 0.5],
    [0.75, 0.25, 0.75],
    [0, 0.5, 0.5],
    [0.25, 0.75, 0.75],
  ]);

let serial = 0;
/** A node of `type` with `attributes` (a value, or JSON text as stored). */
export function hostileNode(type: string, attributes: unknown): HostileNode {
  serial += 1;
  return {
    uuid: `b0d0d000-0000-4000-8000-${String(serial).padStart(12, '0')}`,
    nodeType: type,
    attributes: typeof attributes === 'string' ? attributes : JSON.stringify(attributes),
  };
}

/** An archive (main_0001) of `nodes`, with one user, in `dir`. */
export async function hostileArchive(
  dir: string,
  nodes: HostileNode[],
  name = 'hostile.aiida',
): Promise<string> {
  const file = join(dir, `${name}.sqlite3`);
  const db = new BetterSqlite3(file);
  for (const sql of ARCHIVE_TABLES) db.exec(sql);
  db.prepare('INSERT INTO db_dbuser VALUES (1, ?, ?, ?, ?)').run('hostile@example.org', 'H', 'S', 'Q');
  const insert = db.prepare(`INSERT INTO db_dbnode VALUES (${new Array(13).fill('?').join(',')})`);
  const time = '2023-01-02 03:04:05.000000';
  // One transaction: a commit per node took 45 s for 2,000 nodes on a busy disk.
  db.transaction(() =>
    nodes.forEach((n, i) =>
      insert.run(i + 1, n.uuid, n.nodeType, null, '', '', time, time, n.attributes, '{}', '{}', null, 1),
    ),
  )();
  db.close();
  const metadata = { export_version: 'main_0001', aiida_version: '2.3.1', key_format: 'sha256' };
  return zipOf({ 'metadata.json': JSON.stringify(metadata), 'db.sqlite3': readFileSync(file) }, name);
}
