/** Deterministic synthetic AiiDA archives, for the demo (`npm start`) and for benchmarks. */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import yazl from 'yazl';
import type { FileStore } from './file-store.js';
import { buildGraph } from './graph.js';

/** Bump when the generated content changes, so cached demo archives are rebuilt. */
export const GENERATOR_VERSION = 4;
export const DEMO_NODES = 3000;
const ZIP_TIME = new Date(Date.UTC(2026, 0, 1));

export interface GenerateOptions {
  nodes: number;
  out: string;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface GenerateSummary {
  nodes: number;
  files: number;
}

export async function generateArchive(options: GenerateOptions): Promise<GenerateSummary> {
  const { nodes, out } = options;
  await mkdir(dirname(out), { recursive: true });
  const dbFile = `${out}.${process.pid}.db.tmp`;
  const zipFile = `${out}.${process.pid}.tmp`;
  let files: FileStore | undefined;
  try {
    files = buildGraph(dbFile, options);
    await writeZip(zipFile, dbFile, files);
    await rename(zipFile, out);
    return { nodes, files: files.size };
  } finally {
    files?.close();
    await rm(`${dbFile}.files`, { force: true });
    await rm(dbFile, { force: true });
    await rm(zipFile, { force: true });
  }
}

async function writeZip(zipFile: string, dbFile: string, files: FileStore) {
  const zip = new yazl.ZipFile();
  const output = createWriteStream(zipFile);
  zip.outputStream.pipe(output);
  const metadata = {
    export_version: 'main_0001',
    aiida_version: '2.3.1',
    key_format: 'sha256',
    compression: 6,
    ctime: ZIP_TIME.toISOString(),
    creation_parameters: {
      entities_starting_set: null,
      include_authinfos: false,
      include_comments: true,
      include_logs: true,
    },
    generator: `quarry generate (version ${GENERATOR_VERSION})`,
  };
  zip.addBuffer(Buffer.from(JSON.stringify(metadata)), 'metadata.json', { mtime: ZIP_TIME });
  zip.addFile(dbFile, 'db.sqlite3', { mtime: ZIP_TIME });
  // Entries are added as the zip consumes them, a few ahead, so that memory stays bounded however many.
  const ahead: Promise<unknown>[] = [];
  for (const { key, content } of files.entries()) {
    const stream = Readable.from([content], { objectMode: false });
    ahead.push(once(stream, 'end'));
    zip.addReadStream(stream, `repo/${key}`, { mtime: ZIP_TIME, size: content.length });
    if (ahead.length >= 64) await ahead.shift();
  }
  zip.end();
  await once(output, 'close');
}

/** The demo archive in the cache folder, generated on first use. */
export async function ensureDemoArchive(
  cacheDir: string,
  onProgress?: GenerateOptions['onProgress'],
): Promise<string> {
  const file = join(cacheDir, `demo-v${GENERATOR_VERSION}.aiida`);
  try {
    await stat(file);
    return file;
  } catch {
    await generateArchive({ nodes: DEMO_NODES, out: file, seed: 1, onProgress });
    return file;
  }
}
