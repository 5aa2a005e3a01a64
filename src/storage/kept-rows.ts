/**
 * Rows of costly statements of a database that never changes (an archive's), kept: the same SQL with the same
 * values gives the same rows for the life of the file, and the statements that cost most (a page deep into a
 * large listing, the links of a node used by thousands) are the ones clients repeat, from many clients at
 * once. Bounded by bytes; the same statement asked again while it runs waits for that run. A posted query's
 * statements are not kept: its whole answer is (src/ops/kept-gets.ts), and a query nobody asked before (a
 * script's own) is seldom asked again with the very same values.
 */
import { KeptOnce } from '../util/bytes-kept.js';

/** A statement that ran at least this long (ms) is kept; quicker ones cost less than their keeping. */
export const KEEP_MS = 20;
/**
 * Of the serving process's heap, per source. Small: whole answers are kept once for the machine
 * (src/ops/kept-gets.ts); these rows serve the statements that answers of other URLs share.
 */
const KEPT_BYTES = 16 * 1024 * 1024;

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

/**
 * About the heap rows take: their strings' lengths, a word for every other value, and as much again for the rows'
 * objects and the strings' headers (2,319 rows of the explorer's grid: 0.82 MB by the first two, 1.64 MB measured
 * in V8's heap). Counted at half, kept rows held four times their bound.
 */
function sizeOf(rows: unknown[]): number {
  let bytes = 0;
  for (const row of rows) {
    const values = Array.isArray(row) ? row : Object.values(row as object);
    for (const value of values) bytes += typeof value === 'string' ? 2 * value.length + 16 : 16;
  }
  return 2 * bytes;
}
