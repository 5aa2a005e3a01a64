/**
 * Limits that tell damaged or hostile input from data, so that opening one never takes unbounded time,
 * memory or disk.
 */

/** Archives unpack to at most this many times their size (JSON compresses 5-20 times; a bomb 1000 times)... */
export const MAX_UNPACK_RATIO = 100;
/** ...once past this many bytes, so that small archives of repetitive text are never refused. */
export const UNPACK_RATIO_FLOOR = 1 << 30;
/**
 * A tar.gz at a URL cannot be read by range, so it is downloaded whole into the cache folder to be converted: up
 * to this size (the largest published AiiDA 1.x exports are a few GB).
 */
export const MAX_DOWNLOAD_BYTES = 32 * 2 ** 30;
/** metadata.json is a few kB. */
export const MAX_METADATA_BYTES = 16 << 20;
/**
 * Nesting of data.json's values: aiida-core reads data.json with Python's json module, which stops at about
 * 1000 levels, so no archive it wrote nests deeper.
 */
export const MAX_JSON_DEPTH = 1000;

export function unpackLimit(packedBytes: number): number {
  return Math.max(UNPACK_RATIO_FLOOR, packedBytes * MAX_UNPACK_RATIO);
}

export class LegacyArchiveError extends Error {
  override name = 'LegacyArchiveError';
}
