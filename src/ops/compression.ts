/**
 * gzip and brotli for answers the client accepts them for (`Accept-Encoding`), when they are worth it: at least
 * `threshold` bytes, of a type that compresses (JSON, text, downloads), and not already compressed (PNG, PDF,
 * JPEG, zip, gzip… found by their first bytes, since every download is `application/octet-stream`).
 *
 * Answers rendered whole (the JSON envelopes, exports) are compressed in one call: on the event loop up to
 * `SYNC_LIMIT`, where a trip to the thread pool costs more than the work, and in the thread pool above it.
 * Brotli is chosen for big answers only, when the client takes either (chooseCoding).
 * Repository files are streams and stay streams: they go through a zlib stream, chunk by chunk, never whole
 * in memory. Brotli at quality 4 and gzip at level 5 keep the CPU cost of a kB of JSON to microseconds; the
 * benchmark measures both (docs/performance.md).
 *
 * Not @fastify/compress: its choice is made on the Content-Type alone (so a PNG export, sent as
 * octet-stream like every download, would be compressed again), a stream is compressed whatever its size,
 * and its per-route hook runs after the app's, where the ETag (src/ops/etag.ts) could not name the coding.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
  type BrotliOptions,
  type ZlibOptions,
} from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sharedKeyOf } from '../http/shared-bytes.js';
import { MadeOnce } from '../util/made-once.js';

export type Coding = 'br' | 'gzip';

export interface CompressionOptions {
  /** Answers smaller than this many bytes are sent as they are (default 1024). */
  threshold?: number;
}

/** Above this many bytes a rendered answer is compressed in the thread pool, off the event loop. */
const SYNC_LIMIT = 128 * 1024;
const BROTLI: BrotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP: ZlibOptions = { level: 5 };

/**
 * Compressed forms of answers whose bytes many requests share (a posted answer made once for many clients: the
 * explorer's grid, 418 kB, asked by every visitor), by the key the route gave them and the coding, while they are
 * made. Compressing such an answer took 4-7 ms of CPU per request with brotli, ten times the rest of its answer:
 * each form is made once however many ask at once (and in the thread pool, as any large answer). It is kept
 * after that with the whole answer it is a form of (src/ops/kept-gets.ts).
 */
const coded = new MadeOnce<Buffer>();
let codedMade = 0;

/** How many shared answers' compressed forms were made (tests). */
export function sharedCompressions(): number {
  return codedMade;
}

/** Media types whose bytes compress: JSON, text, XML, SVG, and downloads (checked by their first bytes). */
const COMPRESSIBLE =
  /^(?:text\/|application\/(?:json|xml|javascript|octet-stream)|image\/svg\+xml|[^;]*\+json)/i;

/** First bytes of formats that are compressed already: another pass only costs CPU. */
const COMPRESSED_MAGIC: readonly Buffer[] = [
  Buffer.from([0x89, 0x50, 0x4e, 0x47]), // PNG
  Buffer.from('%PDF'),
  Buffer.from([0xff, 0xd8, 0xff]), // JPEG
  Buffer.from('GIF8'),
  Buffer.from([0x1f, 0x8b]), // gzip
  Buffer.from('PK\x03\x04'), // zip, and .npz, .docx…
  Buffer.from('BZh'),
  Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), // xz
  Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), // zstd
  Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]), // 7z
];

const RIFF = Buffer.from('RIFF');
const WEBP = Buffer.from('WEBP');

/**
 * Byte by byte, without a view of the head per format: every answer of a few kB or more is checked (a JSON
 * answer at its first byte), and the views were a kilobyte of garbage an answer.
 */
function hasAt(head: Buffer, magic: Buffer, at = 0): boolean {
  if (head.length < at + magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (head[at + i] !== magic[i]) return false;
  return true;
}

export function isCompressedFormat(head: Buffer): boolean {
  for (const magic of COMPRESSED_MAGIC) if (hasAt(head, magic)) return true;
  // WebP: RIFF....WEBP
  return hasAt(head, RIFF) && hasAt(head, WEBP, 8);
}

/** Clients send one of a few Accept-Encoding headers again and again: each is read once. */
const negotiated = new Map<string, Preference>();
const NEGOTIATED_KEPT = 256;

/** What a client accepts: brotli only, gzip only, both alike, or neither. */
type Preference = Coding | 'either' | undefined;

/**
 * Below this size brotli's set-up costs more than its smaller output is worth: on the mix's answers of 1 to
 * 10 kB it took 1.5 to 2 times gzip's CPU for 1 to 8 % fewer bytes; above, 20 to 30 % fewer bytes
 * (docs/performance.md, "HTTP caching and compression").
 */
export const BROTLI_FROM = 16 * 1024;

/**
 * The coding to send an answer of `size` bytes with, for an Accept-Encoding header: the one with the higher
 * q-value among brotli and gzip (`*` stands for both when unlisted, `x-gzip` for gzip); when both are alike
 * (browsers send `gzip, deflate, br`), brotli from BROTLI_FROM bytes on and gzip below; none when neither is
 * acceptable.
 */
export function chooseCoding(header: string | undefined, size: number): Coding | undefined {
  if (header === undefined || header === '') return undefined;
  let preference = negotiated.get(header);
  if (preference === undefined && !negotiated.has(header)) {
    preference = preferenceOf(header);
    if (negotiated.size >= NEGOTIATED_KEPT) negotiated.clear();
    negotiated.set(header, preference);
  }
  return preference === 'either' ? (size >= BROTLI_FROM ? 'br' : 'gzip') : preference;
}

function preferenceOf(header: string): Preference {
  let br: number | undefined;
  let gz: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = qValue(params);
    if (token === 'br') br = q;
    else if (token === 'gzip' || token === 'x-gzip') gz = Math.max(gz ?? 0, q);
    else if (token === '*') any = q;
  }
  br ??= any ?? 0;
  gz ??= any ?? 0;
  if (br <= 0 && gz <= 0) return undefined;
  return br > gz ? 'br' : gz > br ? 'gzip' : 'either';
}

function qValue(params: string[]): number {
  for (const p of params) {
    if (!p.startsWith('q=')) continue;
    const q = Number(p.slice(2));
    return Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0;
  }
  return 1;
}

export function compressSync(coding: Coding, body: Buffer | string): Buffer {
  return coding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body, GZIP);
}

function compressAsync(coding: Coding, body: Buffer | string, done: (e: Error | null, out: Buffer) => void) {
  if (coding === 'br') brotliCompress(body, BROTLI, done);
  else gzip(body, GZIP, done);
}

function compressorStream(coding: Coding) {
  return coding === 'br' ? createBrotliCompress(BROTLI) : createGzip(GZIP);
}

/** Caches must know that the bytes depend on Accept-Encoding, also when this client took none. */
function varyOnCoding(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('Vary', 'Accept-Encoding');
  else if (!/accept-encoding/i.test(String(vary))) reply.header('Vary', `${String(vary)}, Accept-Encoding`);
}

type Done = (error: Error | null, payload?: unknown) => void;

export function registerCompression(app: FastifyInstance, options: CompressionOptions = {}) {
  const threshold = options.threshold ?? 1024;
  app.addHook('onSend', (request, reply, payload, done: Done) => {
    if (payload === null || payload === undefined || reply.statusCode === 304 || reply.statusCode === 204) {
      return done(null, payload);
    }
    if (reply.hasHeader('content-encoding')) return done(null, payload);
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !COMPRESSIBLE.test(type)) return done(null, payload);
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      // A string's UTF-8 length is at least its length: most small answers are decided without counting.
      if (payload.length < threshold / 3 || Buffer.byteLength(payload) < threshold)
        return done(null, payload);
      if (Buffer.isBuffer(payload) && isCompressedFormat(payload)) return done(null, payload);
      varyOnCoding(reply);
      const coding = chooseCoding(request.headers['accept-encoding'], payload.length);
      if (coding === undefined) return done(null, payload);
      reply.header('Content-Encoding', coding);
      const shared = sharedKeyOf(reply);
      if (shared !== undefined) return sendShared(reply, `${coding}\u0000${shared}`, coding, payload, done);
      if (payload.length <= SYNC_LIMIT) return sendCompressed(reply, compressSync(coding, payload), done);
      return compressAsync(coding, payload, (error, out) =>
        error ? done(error) : sendCompressed(reply, out, done),
      );
    }
    if (payload instanceof Readable) return compressStream(request.method, reply, payload, threshold, done);
    return done(null, payload);
  });
}

/** A shared answer's compressed form: under way for another request, or made now. */
function sendShared(reply: FastifyReply, key: string, coding: Coding, payload: Buffer | string, done: Done) {
  const making = coded.run(key, () => {
    codedMade++;
    return new Promise<Buffer>((resolve, reject) =>
      compressAsync(coding, payload, (error, out) => (error ? reject(error) : resolve(out))),
    );
  });
  making.then((out) => sendCompressed(reply, out, done), done);
}

function sendCompressed(reply: FastifyReply, body: Buffer, done: Done) {
  reply.header('Content-Length', String(body.length));
  done(null, body);
}

/**
 * A stream (a repository file) through a compressor, once its first chunk showed it is not compressed
 * already. Its declared Content-Length says whether it is worth it; the compressed length is not known
 * beforehand, so the answer is chunked. A HEAD answer gets the same headers, without compressing anything.
 */
function compressStream(
  method: string,
  reply: FastifyReply,
  source: Readable,
  threshold: number,
  done: Done,
) {
  const declared = reply.getHeader('content-length');
  if (declared !== undefined && Number(declared) < threshold) return done(null, source);
  const coding = chooseCoding(
    reply.request.headers['accept-encoding'],
    declared === undefined ? Infinity : Number(declared),
  );
  if (coding === undefined) {
    varyOnCoding(reply);
    return done(null, source);
  }
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  iterator.next().then(
    (first) => {
      const rest = withFirst(first, iterator);
      if (first.done === true || isCompressedFormat(first.value)) return done(null, rest);
      varyOnCoding(reply);
      reply.header('Content-Encoding', coding);
      reply.removeHeader('content-length');
      if (method === 'HEAD') return done(null, rest);
      const compressor = compressorStream(coding);
      // An error of the source (a damaged stored object) ends the compressed answer short; the route logs it.
      pipeline(rest, compressor, () => undefined);
      done(null, compressor);
    },
    // The route's own error listener logs it; the answer is cut short as an uncompressed one would be.
    (error: Error) => {
      const failed = new Readable({ read() {} });
      failed.destroy(error);
      done(null, failed);
    },
  );
}

/** The source again, its first chunk read already. */
function withFirst(first: IteratorResult<Buffer>, rest: AsyncIterator<Buffer>): Readable {
  return Readable.from(
    (async function* () {
      try {
        if (first.done === true) return;
        yield first.value;
        for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
      } finally {
        // An answer abandoned half way (the client left) releases the source too.
        await rest.return?.();
      }
    })(),
    { objectMode: false },
  );
}
