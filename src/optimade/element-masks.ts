/**
 * A structure's set of elements as two integers of bits (atomic numbers 1-62 and 63-118), so that HAS ALL,
 * HAS ANY and HAS ONLY on `elements` are one comparison per row, read from an index, instead of a lookup per
 * element: `elements HAS ALL "Si","O" AND nelements=2` over 10^6 structures reads the (nelements, masks) index
 * only.
 */

// prettier-ignore
const SYMBOLS = [
  'H', 'He', 'Li', 'Be', 'B', 'C', 'N', 'O', 'F', 'Ne', 'Na', 'Mg', 'Al', 'Si', 'P', 'S', 'Cl', 'Ar', 'K', 'Ca',
  'Sc', 'Ti', 'V', 'Cr', 'Mn', 'Fe', 'Co', 'Ni', 'Cu', 'Zn', 'Ga', 'Ge', 'As', 'Se', 'Br', 'Kr', 'Rb', 'Sr', 'Y',
  'Zr', 'Nb', 'Mo', 'Tc', 'Ru', 'Rh', 'Pd', 'Ag', 'Cd', 'In', 'Sn', 'Sb', 'Te', 'I', 'Xe', 'Cs', 'Ba', 'La', 'Ce',
  'Pr', 'Nd', 'Pm', 'Sm', 'Eu', 'Gd', 'Tb', 'Dy', 'Ho', 'Er', 'Tm', 'Yb', 'Lu', 'Hf', 'Ta', 'W', 'Re', 'Os', 'Ir',
  'Pt', 'Au', 'Hg', 'Tl', 'Pb', 'Bi', 'Po', 'At', 'Rn', 'Fr', 'Ra', 'Ac', 'Th', 'Pa', 'U', 'Np', 'Pu', 'Am', 'Cm',
  'Bk', 'Cf', 'Es', 'Fm', 'Md', 'No', 'Lr', 'Rf', 'Db', 'Sg', 'Bh', 'Hs', 'Mt', 'Ds', 'Rg', 'Cn', 'Nh', 'Fl', 'Mc',
  'Lv', 'Ts', 'Og',
];

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
  SYMBOLS.map((s, i) => {
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
