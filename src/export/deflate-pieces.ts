/**
 * One deflate stream made of pieces deflated at once on several threads (as pigz does): the input is cut into
 * pieces of 1 MiB, each deflated apart with the 32 KiB before it as its dictionary and ended by a sync flush (a
 * whole number of bytes, no final block), and the pieces, in order, followed by an empty final block, are one
 * deflate stream any inflater reads, compressed as well as by one stream. An export is mostly its database, one
 * entry: deflated by one stream (as yazl does) it ran on one core at 12-15 MB/s of output here.
 */
import { availableParallelism } from 'node:os';
import { constants, crc32, deflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';

const PIECE = 1 << 20;
/** Deflate's window: what a piece's matches may reach back to. */
const WINDOW = 32 * 1024;
/**
 * Pieces being deflated at once, per stream: as many as the cores, within the 4 threads of libuv's pool, which
 * the process's file reads share.
 */
const AT_ONCE = Math.max(2, Math.min(4, availableParallelism()));
/** A smaller piece is deflated in this thread: a hop to the pool costs more than it. */
const IN_THREAD = 16 * 1024;
/** An empty final block (fixed Huffman codes: the block header and its end code). */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** What the input was, known once the output has been read to its end. */
export interface Deflated {
  crc: number;
  size: number;
}

function deflatePiece(piece: Buffer, level: number, dictionary: Buffer | undefined): Promise<Buffer> {
  const options: ZlibOptions = { level, finishFlush: constants.Z_SYNC_FLUSH };
  if (dictionary !== undefined) options.dictionary = dictionary;
  if (piece.length < IN_THREAD) return Promise.resolve(deflateRawSync(piece, options));
  return new Promise((resolve, reject) =>
    deflateRaw(piece, options, (error, out) => (error === null ? resolve(out) : reject(error))),
  );
}

/** The raw deflate stream of `source`, in order; `into` gets its checksum and size. */
export async function* deflatePieces(
  source: AsyncIterable<Buffer>,
  level: number,
  into: Deflated,
): AsyncGenerator<Buffer> {
  const pending: Promise<Buffer>[] = [];
  let before: Buffer | undefined;
  const start = (piece: Buffer) => {
    into.crc = crc32(piece, into.crc);
    into.size += piece.length;
    const made = deflatePiece(piece, level, before);
    // Read in order below; a failure meanwhile (or after the reader left) is not an unhandled rejection.
    made.catch(() => undefined);
    pending.push(made);
    before = (
      piece.length >= WINDOW || before === undefined ? piece : Buffer.concat([before, piece])
    ).subarray(-WINDOW);
  };
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of source) {
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes < PIECE) continue;
    const all = Buffer.concat(held);
    let at = 0;
    for (; all.length - at >= PIECE; at += PIECE) start(all.subarray(at, at + PIECE));
    held = at < all.length ? [all.subarray(at)] : [];
    heldBytes = all.length - at;
    while (pending.length > AT_ONCE) yield await pending.shift()!;
  }
  if (heldBytes > 0) start(Buffer.concat(held));
  while (pending.length > 0) yield await pending.shift()!;
  yield FINAL_BLOCK;
}
