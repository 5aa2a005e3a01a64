/** Exports fetched from an app and read back: the zip's entries and its database, read independently of Quarry. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import yauzl from 'yauzl';
import { tempDir } from './temp.js';

/** GET `url` of the app into a file of a temporary folder; fails unless it answers 200 with a zip. */
export async function fetchExport(app: FastifyInstance, url: string, name = 'export.aiida'): Promise<string> {
  const r = await app.inject({ method: 'GET', url });
  if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
  if (!String(r.headers['content-type']).startsWith('application/zip'))
    throw new Error(`${url}: answered ${String(r.headers['content-type'])}`);
  const file = join(tempDir('quarry-export-'), name);
  writeFileSync(file, r.rawPayload);
  return file;
}

/** Every entry of a zip: name and bytes. */
export async function zipEntries(file: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: false });
  const out = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      out.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return out;
}

/** The db.sqlite3 of a zip, opened read-only from a copy in a temporary folder. */
export async function databaseIn(file: string): Promise<BetterSqlite3.Database> {
  const db = (await zipEntries(file)).get('db.sqlite3');
  if (db === undefined) throw new Error(`${file} has no db.sqlite3`);
  const copy = join(tempDir('quarry-export-db-'), 'db.sqlite3');
  writeFileSync(copy, db);
  return new BetterSqlite3(copy, { readonly: true });
}
