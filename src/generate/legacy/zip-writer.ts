/**
 * A zip written as a stream in bounded memory, with zip64 where sizes, offsets or the entry count need it.
 * yazl (used for main_0001 archives, whose repository has one entry per distinct file) keeps every entry's
 * central-directory record in memory until the end; a legacy archive has an entry per node folder, millions at
 * 10^6 nodes, so here the central directory is spooled to a scratch file and copied after the entries.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { CountingFile, ENTRY_TIME, type ArchiveSink } from './sink.js';

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const UTF8_NAMES = 0x0800;
const DATA_DESCRIPTOR = 0x0008;

function dosTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    date: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}
const STAMP = dosTime(ENTRY_TIME);

interface Entry {
  name: Buffer;
  flags: number;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  directory: boolean;
}

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
    await this.stored(name.endsWith('/') ? name : `${name}/`, Buffer.alloc(0), true);
  }

  async file(name: string, content: Buffer): Promise<void> {
    const deflated = content.length > 0 ? deflateRawSync(content) : content;
    if (deflated.length >= content.length) return this.stored(name, content, false);
    const entry = this.entry(name, 8, 0, crc32(content), deflated.length, content.length);
    await this.out.write(this.localHeader(entry, false));
    await this.out.write(deflated);
    await this.record(entry);
  }

  async stream(name: string, source: Iterable<string>): Promise<void> {
    // Sizes and checksum are known only at the end: they follow the data in a (zip64) data descriptor.
    const entry = this.entry(name, 8, DATA_DESCRIPTOR, 0, 0, 0);
    await this.out.write(this.localHeader(entry, true));
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
    const descriptor = Buffer.alloc(24);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeBigUInt64LE(BigInt(compressed), 8);
    descriptor.writeBigUInt64LE(BigInt(size), 16);
    await this.out.write(descriptor);
    await this.record(entry);
  }

  private entry(name: string, method: number, flags: number, crc: number, compressed: number, size: number) {
    return {
      name: Buffer.from(name),
      flags: UTF8_NAMES | flags,
      method,
      crc,
      compressed,
      size,
      offset: this.out.offset,
      directory: name.endsWith('/'),
    };
  }

  private async stored(name: string, content: Buffer, directory: boolean) {
    const entry = this.entry(name, 0, 0, crc32(content), content.length, content.length);
    entry.directory = directory;
    await this.out.write(this.localHeader(entry, false));
    if (content.length > 0) await this.out.write(content);
    await this.record(entry);
  }

  private localHeader(entry: Entry, zip64: boolean): Buffer {
    const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(16, 2); // both sizes, zero here, in the data descriptor
    }
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(zip64 ? 45 : 20, 4);
    header.writeUInt16LE(entry.flags, 6);
    header.writeUInt16LE(entry.method, 8);
    header.writeUInt16LE(STAMP.time, 10);
    header.writeUInt16LE(STAMP.date, 12);
    header.writeUInt32LE(zip64 ? 0 : entry.crc, 14);
    header.writeUInt32LE(zip64 ? MAX32 : entry.compressed, 18);
    header.writeUInt32LE(zip64 ? MAX32 : entry.size, 22);
    header.writeUInt16LE(entry.name.length, 26);
    header.writeUInt16LE(extra.length, 28);
    return Buffer.concat([header, entry.name, extra]);
  }

  /** The entry's central-directory record, to the scratch file. */
  private async record(entry: Entry) {
    this.count++;
    const big = [entry.size, entry.compressed, entry.offset].map((n) => n >= MAX32);
    const wide = [entry.size, entry.compressed, entry.offset].filter((_, i) => big[i]);
    const extra = Buffer.alloc(wide.length > 0 ? 4 + 8 * wide.length : 0);
    if (wide.length > 0) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8 * wide.length, 2);
      wide.forEach((n, i) => extra.writeBigUInt64LE(BigInt(n), 4 + 8 * i));
    }
    const zip64 = wide.length > 0 || (entry.flags & DATA_DESCRIPTOR) !== 0;
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 45, 4); // made by: unix, zip 4.5
    header.writeUInt16LE(zip64 ? 45 : 20, 6);
    header.writeUInt16LE(entry.flags, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt16LE(STAMP.time, 12);
    header.writeUInt16LE(STAMP.date, 14);
    header.writeUInt32LE(entry.crc, 16);
    header.writeUInt32LE(big[1] ? MAX32 : entry.compressed, 20);
    header.writeUInt32LE(big[0] ? MAX32 : entry.size, 24);
    header.writeUInt16LE(entry.name.length, 28);
    header.writeUInt16LE(extra.length, 30);
    const mode = entry.directory ? 0o40755 : 0o100644;
    header.writeUInt32LE(((mode << 16) | (entry.directory ? 0x10 : 0)) >>> 0, 38);
    header.writeUInt32LE(big[2] ? MAX32 : entry.offset, 42);
    await this.central.write(Buffer.concat([header, entry.name, extra]));
  }

  async close(): Promise<void> {
    await this.central.end();
    const start = this.out.offset;
    for await (const chunk of createReadStream(this.centralFile) as AsyncIterable<Buffer>)
      await this.out.write(chunk);
    await rm(this.centralFile, { force: true });
    const size = this.out.offset - start;
    const needs64 = this.count >= MAX16 || start >= MAX32 || size >= MAX32;
    if (needs64) {
      const record = Buffer.alloc(56);
      record.writeUInt32LE(0x06064b50, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE((3 << 8) | 45, 12);
      record.writeUInt16LE(45, 14);
      record.writeBigUInt64LE(BigInt(this.count), 24);
      record.writeBigUInt64LE(BigInt(this.count), 32);
      record.writeBigUInt64LE(BigInt(size), 40);
      record.writeBigUInt64LE(BigInt(start), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(this.out.offset), 8);
      locator.writeUInt32LE(1, 16);
      await this.out.write(Buffer.concat([record, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(this.count, MAX16), 8);
    end.writeUInt16LE(Math.min(this.count, MAX16), 10);
    end.writeUInt32LE(Math.min(size, MAX32), 12);
    end.writeUInt32LE(Math.min(start, MAX32), 16);
    await this.out.write(end);
    await this.out.end();
  }

  async abort(): Promise<void> {
    await this.central.destroy();
    await this.out.destroy();
    await rm(this.centralFile, { force: true });
    await rm(this.path, { force: true });
  }
}
