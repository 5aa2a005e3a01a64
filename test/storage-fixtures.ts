/** Small synthetic .aiida archives (and broken ones) for the storage tests; no generator, no shared data. */
import { createHash } from 'node:crypto';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { tempDir as madeTempDir } from './support/temp.js';

export const tempDir = (): string => madeTempDir('quarry-storage-');

export type ZipContent = Record<string, string | Buffer>;

/** A zip holding exactly `entries`; `compress: false` stores them, as `verdi archive create` can. */
export async function zipOf(entries: ZipContent, name = 'x.aiida', compress = true): Promise<string> {
  const file = join(tempDir(), name);
  const zip = new yazl.ZipFile();
  const out = createWriteStream(file);
  zip.outputStream.pipe(out);
  for (const [path, content] of Object.entries(entries)) {
    if (path.endsWith('/')) zip.addEmptyDirectory(path);
    else zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), path, { compress });
  }
  zip.end();
  await once(out, 'close');
  return file;
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface Synthetic {
  file: string;
  nodes: number;
  /** Repository keys and their contents. */
  objects: Map<string, Buffer>;
  entries: ZipContent;
}

/** A valid archive: a db.sqlite3 with `nodes` rows in db_dbnode, each naming one repository object. */
export async function syntheticArchive(nodes = 50, options: { version?: string } = {}): Promise<Synthetic> {
  const dbFile = join(tempDir(), 'db.sqlite3');
  const db = new BetterSqlite3(dbFile);
  db.exec(
    'CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL, node_type TEXT, repository_metadata TEXT)',
  );
  const insert = db.prepare('INSERT INTO db_dbnode VALUES (?, ?, ?, ?)');
  const objects = new Map<string, Buffer>();
  for (let id = 1; id <= nodes; id++) {
    // Sizes up to ~200 kB so that some reads span many chunks of the zip stream.
    const content = Buffer.from(`node ${id} `.repeat(1 + ((id * 7919) % 20000)));
    const key = sha256(content);
    objects.set(key, content);
    const metadata = { o: { 'file.txt': { k: key } } };
    insert.run(
      id,
      `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      'data.Data.',
      JSON.stringify(metadata),
    );
  }
  db.close();
  const entries: ZipContent = {
    'metadata.json': JSON.stringify({
      export_version: options.version ?? 'main_0001',
      aiida_version: '2.6.3',
    }),
    'db.sqlite3': readFileSync(dbFile),
    'repo/': '',
  };
  for (const [key, content] of objects) entries[`repo/${key}`] = content;
  return { file: await zipOf(entries, 'synthetic.aiida'), nodes, objects, entries };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every repository key named in the nodes' repository_metadata (a tree of {o: {name: {k | o}}}). */
export function repositoryKeys(metadata: string[]): Set<string> {
  const keys = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    const { k, o } = value as { k?: unknown; o?: Record<string, unknown> };
    if (typeof k === 'string') keys.add(k);
    for (const child of Object.values(o ?? {})) walk(child);
  };
  for (const text of metadata) walk(JSON.parse(text));
  return keys;
}

/** The databases in a cache folder's copies of archives (each with its `.size` record beside it). */
export function cachedFiles(cacheDir: string): string[] {
  return readdirSync(join(cacheDir, 'archives')).filter((name) => name.endsWith('.sqlite3'));
}

/** db.sqlite3 of an archive, read with plain yauzl, independently of the backend's own zip code. */
export async function databaseOf(file: string): Promise<Buffer> {
  const zip = await yauzl.openPromise(file, { lazyEntries: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName === 'db.sqlite3') return await readAll(await zip.openReadStreamPromise(entry));
    }
  } finally {
    zip.close();
  }
  throw new Error(`${file} has no db.sqlite3`);
}
