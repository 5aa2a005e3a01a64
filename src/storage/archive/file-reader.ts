/**
 * A yauzl RandomAccessReader over one file descriptor.
 *
 * yauzl reads the central directory with two small reads per entry; on a plain fd that is two thread-pool
 * round trips per entry (about 12 s for 300 000 entries). While `indexing` is on, reads are served from
 * 1 MiB blocks read ahead, which makes indexing ten times faster. Every block read in that phase is also
 * hashed: those bytes are the end-of-central-directory record and the central directory, which is what
 * identifies the archive's content for the extraction cache.
 *
 * Entry data is read with positioned reads (`pread`), so any number of streams can share the descriptor.
 * Not fs.createReadStream: destroying one of those closes its descriptor even with `autoClose: false`,
 * and yauzl destroys streams; here only yauzl's reference count closes the descriptor.
 */
import { createHash, type Hash } from 'node:crypto';
import { close, read } from 'node:fs';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';

const BLOCK = 1 << 20;
/** Served-from-memory reads call back through a microtask; every so often yield to the event loop instead. */
const YIELD_EVERY = 1024;

type ReadCallback = (err: Error | null, bytesRead?: number) => void;

export class FileReader extends yauzl.RandomAccessReader {
  /** yauzl's reference count on the descriptor (inherited, missing from its type declarations). */
  declare ref: () => void;
  declare unref: () => void;
  private reading = true;
  private block: Buffer | undefined;
  private blockStart = 0;
  private served = 0;
  private readonly hash: Hash = createHash('sha256');

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    super();
  }

  get indexing(): boolean {
    return this.reading;
  }

  /** Indexing over: the read-ahead block (1 MiB) goes, or every open archive would keep one for nothing. */
  set indexing(on: boolean) {
    this.reading = on;
    if (!on) this.block = undefined;
  }

  /** The hash of everything read while indexing; call once, after indexing. */
  fingerprint(): string {
    return this.hash.digest('hex');
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: ReadCallback,
  ): void {
    if (!this.indexing) {
      read(this.fd, buffer, offset, length, position, (err, bytesRead) => callback(err, bytesRead));
      return;
    }
    const block = this.block;
    if (block && position >= this.blockStart && position + length <= this.blockStart + block.length) {
      block.copy(buffer, offset, position - this.blockStart, position - this.blockStart + length);
      if (++this.served % YIELD_EVERY === 0) setImmediate(callback, null, length);
      else queueMicrotask(() => callback(null, length));
      return;
    }
    const next = Buffer.allocUnsafe(Math.max(0, Math.min(Math.max(length, BLOCK), this.size - position)));
    read(this.fd, next, 0, next.length, position, (err, bytesRead) => {
      if (err) return callback(err);
      this.block = next.subarray(0, bytesRead);
      this.blockStart = position;
      this.hash.update(this.block);
      const n = Math.min(length, bytesRead);
      next.copy(buffer, offset, 0, n);
      callback(null, n);
    });
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new RangeStream(this.fd, start, end);
  }

  override close(callback: (err: Error | null) => void): void {
    close(this.fd, callback);
  }
}

/** Bytes [start, end) of the file, read on demand. */
class RangeStream extends Readable {
  constructor(
    private readonly fd: number,
    private position: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: 1 << 16 });
  }

  override _read(size: number): void {
    const length = Math.min(size, this.end - this.position);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(length);
    read(this.fd, buffer, 0, length, this.position, (err, bytesRead) => {
      if (this.destroyed) return;
      if (err) return void this.destroy(err);
      // A short file ends the stream early; yauzl's byte count turns that into an error.
      if (bytesRead === 0) return void this.push(null);
      this.position += bytesRead;
      this.push(bytesRead < length ? buffer.subarray(0, bytesRead) : buffer);
    });
  }
}
