/** Random access into a zip through its central directory (yauzl), with one-line errors for bad files. */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { StorageOpenError } from '../types.js';

export interface ZipIndex {
  zip: yauzl.ZipFile;
  entries: Map<string, yauzl.Entry>;
  /** A hash of every entry's name, size, CRC and offset: changes whenever the archive's content does. */
  fingerprint: string;
}

export async function openZip(file: string): Promise<ZipIndex> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
        err ? reject(err) : resolve(z),
      ),
    );
  } catch (error) {
    throw new StorageOpenError(zipProblem(file, error));
  }
  const entries = new Map<string, yauzl.Entry>();
  const hash = createHash('sha256');
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.set(entry.fileName, entry);
        hash.update(
          `${entry.fileName}\0${entry.uncompressedSize}\0${entry.crc32}\0${entry.relativeOffsetOfLocalHeader}\n`,
        );
        zip.readEntry();
      });
      zip.once('end', resolve);
      zip.once('error', reject);
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw new StorageOpenError(zipProblem(file, error));
  }
  return { zip, entries, fingerprint: hash.digest('hex') };
}

function zipProblem(file: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return `${file}: no such file`;
  if ((error as NodeJS.ErrnoException).code === 'EISDIR')
    return `${file} is a folder, not an .aiida archive file`;
  if (/end of central directory record signature not found/i.test(detail)) {
    return `${file} is not a zip file (or it is truncated); an .aiida archive is a zip made by 'verdi archive create'`;
  }
  return `${file} is a damaged zip (${detail}); re-download or re-export the archive`;
}

export function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
  );
}

export async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await openEntry(zip, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
