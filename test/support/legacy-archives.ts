/**
 * Small legacy AiiDA archives (export versions 0.1 to 0.13) written by the project's own generator, for tests
 * that need one without ../shared: `legacyArchive('0.13')` gives the path of a fresh archive in a temporary
 * folder removed when the test file ends. `readLegacyArchive` reads a small one back (zip or tar.gz):
 * metadata.json, data.json and the entry names.
 */
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import { generateLegacyArchive, type LegacyVersion } from '../../src/generate/legacy/index.js';
import { tempDir } from './temp.js';

export interface LegacyArchiveOptions {
  nodes?: number;
  format?: 'zip' | 'tar.gz';
  seed?: number;
}

/** Write a legacy archive of `version` (60 nodes unless told) into a temporary folder; its path. */
export async function legacyArchive(
  version: LegacyVersion,
  options: LegacyArchiveOptions = {},
): Promise<string> {
  const format = options.format ?? 'zip';
  const out = join(tempDir('quarry-legacy-'), `export_${version}.${format === 'zip' ? 'aiida' : 'tar.gz'}`);
  await generateLegacyArchive({
    nodes: options.nodes ?? 60,
    out,
    exportVersion: version,
    format,
    seed: options.seed ?? 1,
  });
  return out;
}

export type JsonObject = Record<string, unknown>;

export interface LegacyContent {
  metadata: JsonObject;
  data: JsonObject;
  /** Entry names, './' stripped; folders end in '/'. */
  names: string[];
  /** The bytes of a file entry. */
  files: Map<string, Buffer>;
}

/** Read a small legacy archive whole (tests only: everything is held in memory). */
export async function readLegacyArchive(file: string): Promise<LegacyContent> {
  const bytes = readFileSync(file);
  const files = bytes[0] === 0x1f && bytes[1] === 0x8b ? readTar(gunzipSync(bytes)) : await readZip(file);
  const json = (name: string) => JSON.parse(files.get(name)?.toString() ?? 'null') as JsonObject;
  return { metadata: json('metadata.json'), data: json('data.json'), names: [...files.keys()], files };
}

function readTar(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const text = (from: number, length: number) =>
      header
        .subarray(from, from + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const prefix = text(345, 155);
    let name = (prefix ? `${prefix}/` : '') + text(0, 100);
    const size = parseInt(text(124, 12).trim() || '0', 8);
    const type = text(156, 1);
    name = name.replace(/^\.\//, '');
    if (type === '5' && !name.endsWith('/')) name += '/';
    if (name !== '' && name !== '/') files.set(name, Buffer.from(tar.subarray(at + 512, at + 512 + size)));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const files = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(files));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(entry.fileName.replace(/^\.\//, ''), Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}
