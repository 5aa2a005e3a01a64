/**
 * Rows of costly statements of a database that never changes (an archive's), kept: the same SQL with the same
 * values gives the same rows for the life of the file, and the statements that cost most (a page deep into a
 * large listing, the links of a node used by thousands) are the ones clients repeat, from many clients at
 * once. Bounded by bytes; the same statement asked again while it runs waits for that run.
 */
import { KeptOnce } from '../util/bytes-kept.js';

/** A statement that ran at least this long (ms) is kept; quicker ones cost less than their keeping. */
export const KEEP_MS = 20;
const KEPT_BYTES = 32 * 1024 * 1024;

/**
 * Run a statement (by `key`) once however many ask while it runs; its rows are kept when `costly()` says, once
 * it ran, that the statement is one of those expected to take `KEEP_MS` or more (not one that only waited long
 * for its turn).
 */
export class KeptRows extends KeptOnce<unknown[]> {
  constructor() {
    super(KEPT_BYTES, sizeOf);
  }
}

/** About the bytes rows hold: their strings' lengths, and a word for every other value. */
function sizeOf(rows: unknown[]): number {
  let bytes = 0;
  for (const row of rows) {
    const values = Array.isArray(row) ? row : Object.values(row as object);
    for (const value of values) bytes += typeof value === 'string' ? 2 * value.length + 16 : 16;
  }
  return bytes;
}
