/**
 * A structure's set of elements as two integers of bits (atomic numbers 1-62 and 63-118), so that HAS ALL,
 * HAS ANY and HAS ONLY on `elements` are one comparison per row, read from an index, instead of a lookup per
 * element: `elements HAS ALL "Si","O" AND nelements=2` over 10^6 structures reads the (nelements, masks) index
 * only.
 */

import { SYMBOLS } from '../domain/formats/elements.js';

/** Bits per integer: SQLite's integers are signed 64-bit, and the sign bit is left alone. */
const BITS = 62n;

export interface ElementMask {
  lo: bigint;
  hi: bigint;
  /** Symbols outside the periodic table (AiiDA allows `X` and others): no bit says them. */
  unknown: boolean;
}

/** Each element's bit, in the integer that holds it. */
const BIT = new Map(
  // SYMBOLS[0] is AiiDA's unknown kind 'X', which no bit says.
  SYMBOLS.slice(1).map((s, i) => {
    const z = BigInt(i + 1);
    return [s, z <= BITS ? { lo: 1n << (z - 1n), hi: 0n } : { lo: 0n, hi: 1n << (z - BITS - 1n) }];
  }),
);

export function elementMask(symbols: Iterable<string>): ElementMask {
  let lo = 0n;
  let hi = 0n;
  let unknown = false;
  for (const s of symbols) {
    const bit = BIT.get(s);
    if (bit === undefined) unknown = true;
    else {
      lo |= bit.lo;
      hi |= bit.hi;
    }
  }
  return { lo, hi, unknown };
}
