/**
 * Synthetic AiiDA legacy export archives (export versions 0.1 to 0.13, the JSON format of AiiDA 0.x and 1.x):
 * the same generated provenance as `quarry generate` writes in main_0001 (../graph.ts), written as
 * metadata.json, a streamed data.json and a nodes/ tree, in a zip or a tar.gz. For the converter's tests and
 * benchmarks: `quarry generate --export-version 0.13`.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { FileStore } from '../file-store.js';
import { buildGraph } from '../graph.js';
import { GENERATOR_VERSION } from '../index.js';
import { dataJson } from './data-json.js';
import { writeRepository } from './repository.js';
import type { ArchiveSink } from './sink.js';
import { TarGzWriter } from './tar-writer.js';
import { LegacyFormat, type LegacyVersion } from './versions.js';
import { ZipWriter } from './zip-writer.js';

export { LEGACY_VERSIONS, isLegacyVersion, type LegacyVersion } from './versions.js';

export interface LegacyOptions {
  nodes: number;
  out: string;
  exportVersion: LegacyVersion;
  format?: 'zip' | 'tar.gz';
  seed?: number;
  /** Told of the graph being built, then of the archive being written (`phase`). */
  onProgress?: (done: number, total: number, phase: 'generating' | 'writing') => void;
}

export async function generateLegacyArchive(
  options: LegacyOptions,
): Promise<{ nodes: number; files: number }> {
  const { nodes, out } = options;
  const f = new LegacyFormat(options.exportVersion);
  await mkdir(dirname(out), { recursive: true });
  const dbFile = `${out}.${process.pid}.db.tmp`;
  const partial = `${out}.${process.pid}.tmp`;
  let files: FileStore | undefined;
  let db: BetterSqlite3.Database | undefined;
  let sink: ArchiveSink | undefined;
  try {
    files = buildGraph(dbFile, {
      nodes,
      seed: options.seed,
      onProgress: (done, total) => options.onProgress?.(done, total, 'generating'),
    });
    db = new BetterSqlite3(dbFile, { readonly: true });
    const writer: ArchiveSink =
      options.format === 'tar.gz' ? new TarGzWriter(partial) : new ZipWriter(partial);
    sink = writer;
    const generator = `quarry generate (version ${GENERATOR_VERSION})`;
    await writer.file('metadata.json', Buffer.from(JSON.stringify(f.metadata(generator))));
    await writer.stream('data.json', dataJson(f, db));
    await writeRepository(f, db, files, writer, (done) => {
      if (done % 1000 === 0 || done === nodes) options.onProgress?.(done, nodes, 'writing');
    });
    sink = undefined;
    await writer.close();
    await rename(partial, out);
    return { nodes, files: files.size };
  } finally {
    await sink?.abort();
    db?.close();
    files?.close();
    await rm(`${dbFile}.files`, { force: true });
    await rm(dbFile, { force: true });
    await rm(partial, { force: true });
  }
}
