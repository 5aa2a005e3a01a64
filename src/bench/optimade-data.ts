/**
 * An archive of many StructureData nodes for the OPTIMADE benchmark: the schema, user and computer of a small
 * generated archive, plus `count` structures of random composition (1 to 5 of 30 elements, 1 to 20 sites, one
 * in a hundred a binary Si-O), so that filters on elements, counts and formulas select realistic shares.
 * Kept in the cache folder by size and version, made once.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import yazl from 'yazl';
import { generateArchive } from '../generate/index.js';
import { Rng } from '../generate/prng.js';
import { openZip } from '../storage/archive/zip.js';

const VERSION = 1;
const ELEMENTS = [
  'H',
  'Li',
  'B',
  'C',
  'N',
  'O',
  'F',
  'Na',
  'Mg',
  'Al',
  'Si',
  'P',
  'S',
  'Cl',
  'K',
  'Ca',
  'Ti',
  'V',
  'Cr',
  'Mn',
  'Fe',
  'Co',
  'Ni',
  'Cu',
  'Zn',
  'Ga',
  'Ge',
  'Se',
  'Sr',
  'Ba',
];
const STRUCTURE = 'data.core.structure.StructureData.';

function pick<T>(rng: Rng, items: T[]): T {
  return items[Math.floor(rng.next() * items.length)]!;
}

function attributes(rng: Rng): Record<string, unknown> {
  let symbols: string[];
  let counts: number[];
  if (rng.next() < 0.01) {
    symbols = ['Si', 'O'];
    counts = [1 + Math.floor(rng.next() * 3), 2 + Math.floor(rng.next() * 4)];
  } else {
    const n = 1 + Math.floor(rng.next() * 5);
    const chosen = new Set<string>();
    while (chosen.size < n) chosen.add(pick(rng, ELEMENTS));
    symbols = [...chosen];
    counts = symbols.map(() => 1 + Math.floor(rng.next() * 4));
  }
  const a = 3 + rng.next() * 5;
  const sites = symbols.flatMap((s, i) =>
    Array.from({ length: counts[i]! }, () => ({
      kind_name: s,
      position: [rng.next() * a, rng.next() * a, rng.next() * a].map((x) => Math.round(x * 1e4) / 1e4),
    })),
  );
  const periodic = rng.next() < 0.9;
  return {
    cell: [
      [a, 0, 0],
      [0, a, 0],
      [0, 0, a],
    ],
    pbc1: periodic,
    pbc2: periodic,
    pbc3: periodic,
    kinds: symbols.map((s) => ({ name: s, symbols: [s], weights: [1.0], mass: 1 + ELEMENTS.indexOf(s) * 2 })),
    sites: sites.slice(0, 20),
  };
}

/** The archive with `count` structures, made if it is not in `cacheDir` yet. */
export async function structuresArchive(
  count: number,
  cacheDir: string,
  log: (line: string) => void,
): Promise<string> {
  const file = join(cacheDir, `bench-optimade-${count}-v${VERSION}.aiida`);
  if (await stat(file).catch(() => undefined)) return file;
  await mkdir(cacheDir, { recursive: true });
  log(`generating ${count} structures into ${file}`);
  const seedArchive = `${file}.seed.tmp`;
  const db = `${file}.db.tmp`;
  const zipFile = `${file}.zip.tmp`;
  try {
    await generateArchive({ nodes: 30, out: seedArchive, seed: 3 });
    const zip = await openZip(seedArchive);
    await writeFile(db, await zip.read('db.sqlite3'));
    zip.close();
    const out = new BetterSqlite3(db);
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    const user = (out.prepare('SELECT min(id) AS id FROM db_dbuser').get() as { id: number }).id;
    const insert = out.prepare(
      `INSERT INTO db_dbnode (uuid, node_type, process_type, label, description, ctime, mtime, attributes, extras,
         repository_metadata, user_id) VALUES (?, ?, NULL, ?, '', ?, ?, ?, '{}', '{}', ?)`,
    );
    const rng = new Rng(17);
    const start = Date.UTC(2020, 0, 1);
    const batch = out.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const time = new Date(start + i * 1000).toISOString().replace('T', ' ').replace('Z', '000');
        insert.run(randomUUID(), STRUCTURE, `bench-${i}`, time, time, JSON.stringify(attributes(rng)), user);
      }
    });
    for (let i = 0; i < count; i += 50_000) batch(i, Math.min(count, i + 50_000));
    out.close();
    const zipOut = new yazl.ZipFile();
    const output = createWriteStream(zipFile);
    zipOut.outputStream.pipe(output);
    const metadata = {
      export_version: 'main_0001',
      aiida_version: '2.3.1',
      key_format: 'sha256',
      compression: 0,
    };
    zipOut.addBuffer(Buffer.from(JSON.stringify(metadata)), 'metadata.json');
    // Stored, not deflated: the benchmark measures the side table, not the extraction.
    zipOut.addFile(db, 'db.sqlite3', { compress: false });
    zipOut.end();
    await once(output, 'close');
    await rename(zipFile, file);
    return file;
  } finally {
    for (const f of [seedArchive, db, zipFile]) await rm(f, { force: true });
  }
}
