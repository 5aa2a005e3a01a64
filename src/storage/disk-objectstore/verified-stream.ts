/**
 * The bytes of a stored object, checked while they pass: their count against the size the container
 * recorded, and their sha256 against the key. Packed objects are located through an index that may be stale
 * or damaged, and an uncompressed pack has no checksum of its own, so the key is the only proof that the
 * bytes are the object's.
 */
import { createHash } from 'node:crypto';
import { Transform, type Duplex, type Readable } from 'node:stream';

/** A stored object whose bytes cannot be read back as recorded (a truncated or damaged pack, a bad index). */
export class CorruptObjectError extends Error {
  /** The HTTP layer answers 502: the request was fine, the data behind it is not. */
  readonly status = 502;
  override name = 'CorruptObjectError';
}

/** Where an object's bytes come from, for messages: `loose object`, `packs/3 bytes 10-99 (zlib)`. */
export interface ObjectPlace {
  key: string;
  size: number;
  where: string;
}

export function corruptObject(place: ObjectPlace, why: string): CorruptObjectError {
  return new CorruptObjectError(
    `stored object ${place.key} (${place.where}) is damaged: ${why}; check the container with \`dostore validate\` (disk-objectstore) or restore it from a backup`,
  );
}

/**
 * `source`, through `decode` when given, then through the check. Any failure on the way becomes one
 * CorruptObjectError on the returned stream; destroying the returned stream releases the file it reads.
 */
export function verifiedStream(source: Readable, place: ObjectPlace, decode?: Duplex): Readable {
  const hash = createHash('sha256');
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > place.size) return done(corruptObject(place, `more than the recorded ${place.size} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (seen !== place.size)
        return done(corruptObject(place, `${seen} of the recorded ${place.size} bytes`));
      const digest = hash.digest('hex');
      done(digest === place.key ? null : corruptObject(place, `its content has the sha256 ${digest}`));
    },
  });
  const links = decode ? [source, decode] : [source];
  // `on`, not `once`: a link that errs twice must never leave an error event without a listener.
  for (const link of links)
    link.on('error', (error: Error) => out.destroy(corruptObject(place, error.message)));
  out.on('close', () => {
    for (const link of links) link.destroy();
  });
  (decode ? source.pipe(decode) : source).pipe(out);
  return out;
}
