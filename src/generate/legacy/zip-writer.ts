/**
 * A zip written as a stream in bounded memory, with zip64 where sizes, offsets or the entry count need it.
 * An export's zip (src/export/zip-stream.ts) keeps every entry's central-directory record in memory until the
 * end; a legacy archive has an entry per node folder, millions at 10^6 nodes, so here the central directory is
 * spooled to a scratch file and copied after the entries.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import {
  centralEnd,
  centralRecord,
  dataDescriptor,
  DEFLATED,
  dosTime,
  localHeader,
  storedRecord,
  zipRecord,
  type ZipRecord,
} from '../../util/zip-records.js';
import { CountingFile, ENTRY_TIME, type ArchiveSink } from './sink.js';

const STAMP = dosTime(ENTRY_TIME);

export class ZipWriter implements ArchiveSink {
  private readonly out: CountingFile;
  private readonly central: CountingFile;
  private readonly centralFile: string;
  private count = 0;

  constructor(private readonly path: string) {
    this.out = new CountingFile(path);
    this.centralFile = `${path}.central.tmp`;
    this.central = new CountingFile(this.centralFile);
  }

  async directory(name: string): Promise<void> {
    await this.stored(name.endsWith('/') ? name : `${name}/`, Buffer.alloc(0));
  }

  async file(name: string, content: Buffer): Promise<void> {
    const deflated = content.length > 0 ? deflateRawSync(content) : content;
    if (deflated.length >= content.length) return this.stored(name, content);
    const entry = this.entry(name, DEFLATED, {
      crc: crc32(content),
      compressed: deflated.length,
      size: content.length,
    });
    await this.out.write(localHeader(entry));
    await this.out.write(deflated);
    await this.record(entry);
  }

  async stream(name: string, source: Iterable<string>): Promise<void> {
    // Sizes and checksum are known only at the end: they follow the data in a (zip64) data descriptor.
    const entry = this.entry(name, DEFLATED);
    await this.out.write(localHeader(entry));
    const deflate = createDeflateRaw();
    let crc = 0;
    let size = 0;
    const feeding = (async () => {
      for (const text of source) {
        const chunk = Buffer.from(text);
        crc = crc32(chunk, crc);
        size += chunk.length;
        if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
      }
      deflate.end();
    })().catch((error: unknown) => deflate.destroy(error as Error));
    let compressed = 0;
    for await (const chunk of deflate as AsyncIterable<Buffer>) {
      compressed += chunk.length;
      await this.out.write(chunk);
    }
    await feeding;
    Object.assign(entry, { crc, size, compressed });
    await this.out.write(dataDescriptor(entry));
    await this.record(entry);
  }

  private entry(name: string, method: number, known?: { crc: number; compressed: number; size: number }) {
    return zipRecord(name, method, this.out.offset, STAMP, known);
  }

  private async stored(name: string, content: Buffer) {
    const entry = storedRecord(name, content, this.out.offset, STAMP);
    await this.out.write(localHeader(entry));
    if (content.length > 0) await this.out.write(content);
    await this.record(entry);
  }

  /** The entry's central-directory record, to the scratch file. */
  private async record(entry: ZipRecord) {
    this.count++;
    await this.central.write(centralRecord(entry));
  }

  async close(): Promise<void> {
    await this.central.end();
    const start = this.out.offset;
    for await (const chunk of createReadStream(this.centralFile) as AsyncIterable<Buffer>)
      await this.out.write(chunk);
    await rm(this.centralFile, { force: true });
    await this.out.write(centralEnd(this.count, start, this.out.offset - start));
    await this.out.end();
  }

  async abort(): Promise<void> {
    await this.central.destroy();
    await this.out.destroy();
    await rm(this.centralFile, { force: true });
    await rm(this.path, { force: true });
  }
}
