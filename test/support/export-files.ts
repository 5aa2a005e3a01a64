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

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ABOUT = /^\/api\/v4\/(?:nodes|calcjobs|processes|groups)\/[0-9a-f-]{36}\//;

/**
 * Every request about a node or group of the export (found by walking the export as served), asked of both
 * servings: the answers must be the same, except for the links of a node at the export's border, which in the
 * source also reach nodes outside it (there, the export's links must be some of the source's). Returns how many
 * answers were compared whole, and how many of them were links.
 */
export async function sameAnswers(
  source: FastifyInstance,
  exported: FastifyInstance,
  inside: Set<string>,
  sourceNodes: Set<string>,
): Promise<{ compared: number; links: number }> {
  const { ask, walkUrls } = await import('./walk-api.js');
  const { expect } = await import('vitest');
  const urls = (await walkUrls(exported)).filter((u) => u.payload === undefined && ABOUT.test(u.url));
  let compared = 0;
  let links = 0;
  for (const { url } of urls) {
    const [ours, theirs] = [await ask(exported, url), await ask(source, url)];
    const isLinks = /\/links\//.test(url);
    const named = isLinks ? (JSON.stringify(theirs.body).match(UUIDS) ?? []) : [];
    if (named.every((u) => inside.has(u) || !sourceNodes.has(u))) {
      expect({ url, ...ours }).toEqual({ url, ...theirs });
      compared++;
      if (isLinks) links++;
    } else {
      expect({ url, status: ours.status }).toEqual({ url, status: theirs.status });
      const theirNames = new Set(named);
      for (const u of JSON.stringify(ours.body).match(UUIDS) ?? []) expect(theirNames.has(u)).toBe(true);
    }
  }
  return { compared, links };
}
