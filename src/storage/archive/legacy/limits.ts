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
/**
 * One number of data.json, in characters: Python's json (3.11 on) refuses to read an integer of more digits,
 * and no measured quantity has them; a longer one would cost memory for nothing.
 */
export const MAX_NUMBER_CHARS = 4300;
/** One string of data.json (a value or a key), in UTF-8 bytes, escapes read. */
export const MAX_STRING_BYTES = 8 << 20;
/** One key of a record (an attribute's name): Django's attribute table of AiiDA 0.x and 1.x held 1024. */
export const MAX_KEY_CHARS = 65_536;
/**
 * One record of data.json (a node's fields, its attributes, its extras, a link, a group's members), as written:
 * it is held in memory whole while staged and converted, at a few times its size.
 */
export const MAX_RECORD_BYTES = 16 << 20;
/** Values and keys in one record: each costs far more in memory than its text. */
export const MAX_RECORD_VALUES = 1_000_000;
/** A node's, group's or computer's label: AiiDA's columns are VARCHAR(255) (every listing carries it). */
export const MAX_LABEL_CHARS = 255;
/** A node's, group's or computer's description (every listing of nodes carries it). */
export const MAX_DESCRIPTION_CHARS = 65_536;

export function unpackLimit(packedBytes: number): number {
  return Math.max(UNPACK_RATIO_FLOOR, packedBytes * MAX_UNPACK_RATIO);
}

export class LegacyArchiveError extends Error {
  override name = 'LegacyArchiveError';
}
