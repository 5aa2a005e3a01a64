/**
 * A zip made as it is read: each entry's bytes are asked for when its turn comes (one source open at a time),
 * stored or deflated in pieces on several threads (deflate-pieces.ts), and followed by its data descriptor; the
 * central directory closes it. The stream pulls: nothing is made faster than the client reads, and a stream
 * destroyed (the client gone) stops at the entry being made, its source closed.
 */
import { Readable } from 'node:stream';
import {
  centralEnd,
  centralRecord,
  dataDescriptor,
  DEFLATED,
  dosTime,
  localHeader,
  storedRecord,
  zipRecord,
} from '../util/zip-records.js';
import { deflatePieces, type Deflated } from './deflate-pieces.js';

export type ZipPart =
  | { name: string; stored: Buffer }
  | {
      name: string;
      /** Opens the entry's content, when its turn comes. */
      open: () => Promise<Readable>;
      /** Its size in bytes where it is known before: a source that gives another number of bytes fails. */
      size?: number;
    };

export interface ZipOptions {
  level: number;
  time?: Date;
}

/** The zip of `parts`, in their order. */
export function zipStream(parts: AsyncIterable<ZipPart>, options: ZipOptions): Readable {
  return Readable.from(zipBytes(parts, options), { objectMode: false });
}

async function* zipBytes(parts: AsyncIterable<ZipPart>, options: ZipOptions): AsyncGenerator<Buffer> {
  const time = dosTime(options.time ?? new Date());
  const central: Buffer[] = [];
  let offset = 0;
  for await (const part of parts) {
    if ('stored' in part) {
      const content = part.stored;
      const entry = storedRecord(part.name, content, offset, time);
      const header = localHeader(entry);
      yield header;
      yield content;
      offset += header.length + content.length;
      central.push(centralRecord(entry));
      continue;
    }
    const entry = zipRecord(part.name, DEFLATED, offset, time);
    const header = localHeader(entry);
    yield header;
    offset += header.length;
    const source = await part.open();
    const read: Deflated = { crc: 0, size: 0 };
    try {
      for await (const out of deflatePieces(source as AsyncIterable<Buffer>, options.level, read)) {
        entry.compressed += out.length;
        yield out;
      }
    } finally {
      source.destroy();
    }
    if (part.size !== undefined && read.size !== part.size)
      throw new Error(`${part.name} gave ${read.size} bytes where ${part.size} were expected`);
    entry.crc = read.crc;
    entry.size = read.size;
    offset += entry.compressed;
    const descriptor = dataDescriptor(entry);
    yield descriptor;
    offset += descriptor.length;
    central.push(centralRecord(entry));
  }
  const start = offset;
  let size = 0;
  // The records in batches of a thousand: a few large chunks for the socket, not one per entry.
  for (let i = 0; i < central.length; i += 1024) {
    const batch = Buffer.concat(central.slice(i, i + 1024));
    size += batch.length;
    yield batch;
  }
  yield centralEnd(central.length, start, size);
}
