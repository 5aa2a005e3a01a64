/**
 * The zip an export streams, read back by yauzl (what Quarry's own archive reader is built on) entry by entry:
 * stored and deflated entries (one deflated in many pieces on several threads) give back their bytes and their
 * checksums, compress as well as one deflate stream does, more than 65,535 entries take zip64's end records, a
 * source that gives another size than announced fails the stream, and a stream destroyed closes its source.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { zipStream, type ZipPart } from '../src/export/zip-stream.js';
import { tempDir } from './helpers.js';

async function* listed(parts: ZipPart[]): AsyncGenerator<ZipPart> {
  yield* parts;
}

const fromBuffer = (content: Buffer) => async () => Readable.from([content], { objectMode: false });

async function written(parts: ZipPart[]): Promise<string> {
  const file = join(tempDir('quarry-zip-'), 'out.zip');
  await pipeline(zipStream(listed(parts), { level: 6 }), createWriteStream(file));
  return file;
}

interface ReadEntry {
  name: string;
  method: number;
  crc: number;
  compressed: number;
  content: Buffer;
}

function readZip(file: string): Promise<ReadEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error !== null || zip === undefined) return reject(error);
      const entries: ReadEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err !== null || stream === undefined) return reject(err);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({
              name: entry.fileName,
              method: entry.compressionMethod,
              crc: entry.crc32,
              compressed: entry.compressedSize,
              content: Buffer.concat(chunks),
            });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Text that repeats across the pieces' borders, and random bytes, 3.5 MiB. */
function mixed(): Buffer {
  const lines: string[] = [];
  for (let i = 0, length = 0; length < 2.5 * 2 ** 20; i++) {
    lines.push(`{"id": ${i % 977}, "node_type": "data.core.dict.Dict.", "value": ${(i * 7919) % 10007}}\n`);
    length += lines[i]!.length;
  }
  const random = Buffer.alloc(2 ** 20);
  for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
  return Buffer.concat([Buffer.from(lines.join('')), random]).subarray(0, 3.5 * 2 ** 20);
}

describe('the zip stream of an export', () => {
  it('gives back every entry, stored or deflated in pieces, with its checksum', async () => {
    const big = mixed();
    const metadata = Buffer.from('{"export_version": "main_0001"}');
    const small = Buffer.from('a small file\n'.repeat(80));
    const file = await written([
      { name: 'metadata.json', stored: metadata },
      { name: 'db.sqlite3', open: fromBuffer(big) },
      { name: 'repo/empty', size: 0, open: fromBuffer(Buffer.alloc(0)) },
      { name: 'repo/small', size: small.length, open: fromBuffer(small) },
    ]);
    const entries = await readZip(file);
    expect(entries.map((e) => [e.name, e.method])).toEqual([
      ['metadata.json', 0],
      ['db.sqlite3', 8],
      ['repo/empty', 8],
      ['repo/small', 8],
    ]);
    for (const [entry, content] of entries.map(
      (e, i) => [e, [metadata, big, Buffer.alloc(0), small][i]!] as const,
    )) {
      expect(entry.content.equals(content), entry.name).toBe(true);
      expect(entry.crc, entry.name).toBe(crc32(content));
    }
    // In pieces, as small as one stream makes it (each piece starts with the window before it).
    const oneStream = deflateRawSync(big, { level: 6 }).length;
    expect(entries[1]!.compressed).toBeLessThan(oneStream * 1.01);
  });

  it('takes zip64 end records past 65,535 entries', async () => {
    const parts: ZipPart[] = [];
    for (let i = 0; i < 70_000; i++) parts.push({ name: `repo/${i}`, stored: Buffer.from(String(i)) });
    const file = await written(parts);
    // The entries' records, walked without reading their data (their data is checked above).
    const names = await new Promise<string[]>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true }, (error, zip) => {
        if (error !== null || zip === undefined) return reject(error);
        const seen: string[] = [];
        zip.on('entry', (entry: yauzl.Entry) => {
          seen.push(entry.fileName);
          zip.readEntry();
        });
        zip.on('end', () => resolve(seen));
        zip.on('error', reject);
        zip.readEntry();
      }),
    );
    expect(names.length).toBe(70_000);
    expect(names[69_999]).toBe('repo/69999');
  });

  it('fails when a source gives another number of bytes than announced', async () => {
    const content = Buffer.from('changed since the plan');
    await expect(
      written([{ name: 'repo/x', size: content.length + 1, open: fromBuffer(content) }]),
    ).rejects.toThrow(/repo\/x gave 22 bytes where 23 were expected/);
  });

  it('closes the source being read when the stream is destroyed', async () => {
    let closed = false;
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(256 * 1024, 7));
      },
    });
    endless.once('close', () => (closed = true));
    const stream = zipStream(listed([{ name: 'db.sqlite3', open: async () => endless }]), { level: 1 });
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    await expect.poll(() => closed).toBe(true);
  });
});
