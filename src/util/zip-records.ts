/**
 * The records of a zip file as its writers here make them (PKWARE's APPNOTE): an entry's local header, its data
 * descriptor, its central-directory record, and the end of the central directory, with zip64 where a size, an
 * offset or the number of entries needs it. Pure: the writers (an export's stream, the legacy generator's file)
 * place the bytes.
 */
import { crc32 } from 'node:zlib';

export const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const UTF8_NAMES = 0x0800;
/** Sizes and checksum follow the data, in a data descriptor (the entry is written as it is made). */
export const DATA_DESCRIPTOR = 0x0008;
export const STORED = 0;
export const DEFLATED = 8;

export interface ZipRecord {
  name: Buffer;
  flags: number;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  /** Where the entry's local header starts. */
  offset: number;
  directory: boolean;
  time: { time: number; date: number };
}

export function dosTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    date: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** An entry's record before its data: its checksum and sizes `known` now, or else given in its descriptor. */
export function zipRecord(
  name: string,
  method: number,
  offset: number,
  time: { time: number; date: number },
  known?: { crc: number; compressed: number; size: number },
): ZipRecord {
  return {
    name: Buffer.from(name),
    flags: UTF8_NAMES | (known === undefined ? DATA_DESCRIPTOR : 0),
    method,
    crc: known?.crc ?? 0,
    compressed: known?.compressed ?? 0,
    size: known?.size ?? 0,
    offset,
    directory: name.endsWith('/'),
    time,
  };
}

/** The record of an entry stored as it is (no compression): its checksum and sizes known from `content`. */
export function storedRecord(
  name: string,
  content: Buffer,
  offset: number,
  time: { time: number; date: number },
): ZipRecord {
  return zipRecord(name, STORED, offset, time, {
    crc: crc32(content),
    compressed: content.length,
    size: content.length,
  });
}

/**
 * The local header. An entry whose sizes come in its descriptor says so with a zip64 extra field, so that the
 * descriptor's sizes are 8 bytes each, whatever they turn out to be.
 */
export function localHeader(entry: ZipRecord): Buffer {
  const zip64 = (entry.flags & DATA_DESCRIPTOR) !== 0;
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
  header.writeUInt16LE(entry.time.time, 10);
  header.writeUInt16LE(entry.time.date, 12);
  header.writeUInt32LE(zip64 ? 0 : entry.crc, 14);
  header.writeUInt32LE(zip64 ? MAX32 : entry.compressed, 18);
  header.writeUInt32LE(zip64 ? MAX32 : entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(extra.length, 28);
  return Buffer.concat([header, entry.name, extra]);
}

/** The (zip64) data descriptor of a streamed entry, once its data is written. */
export function dataDescriptor(entry: ZipRecord): Buffer {
  const descriptor = Buffer.alloc(24);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeBigUInt64LE(BigInt(entry.compressed), 8);
  descriptor.writeBigUInt64LE(BigInt(entry.size), 16);
  return descriptor;
}

/** The entry's central-directory record. */
export function centralRecord(entry: ZipRecord): Buffer {
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
  header.writeUInt16LE(entry.time.time, 12);
  header.writeUInt16LE(entry.time.date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(big[1] ? MAX32 : entry.compressed, 20);
  header.writeUInt32LE(big[0] ? MAX32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  const mode = entry.directory ? 0o40755 : 0o100644;
  header.writeUInt32LE(((mode << 16) | (entry.directory ? 0x10 : 0)) >>> 0, 38);
  header.writeUInt32LE(big[2] ? MAX32 : entry.offset, 42);
  return Buffer.concat([header, entry.name, extra]);
}

/**
 * What follows the central directory of `count` entries, which starts at `start` and is `size` bytes long: the
 * zip64 end record and its locator where they are needed, then the end record.
 */
export function centralEnd(count: number, start: number, size: number): Buffer {
  const parts: Buffer[] = [];
  if (count >= MAX16 || start >= MAX32 || size >= MAX32) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE((3 << 8) | 45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(size), 40);
    record.writeBigUInt64LE(BigInt(start), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(start + size), 8);
    locator.writeUInt32LE(1, 16);
    parts.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(count, MAX16), 8);
  end.writeUInt16LE(Math.min(count, MAX16), 10);
  end.writeUInt32LE(Math.min(size, MAX32), 12);
  end.writeUInt32LE(Math.min(start, MAX32), 16);
  parts.push(end);
  return Buffer.concat(parts);
}
