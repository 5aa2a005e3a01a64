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

const NUMBER = new Map(SYMBOLS.map((s, i) => [s, i + 1]));
/** Bits per integer: SQLite's integers are signed 64-bit, and the sign bit is left alone. */
const BITS = 62n;

export interface ElementMask {
  lo: bigint;
  hi: bigint;
  /** Symbols outside the periodic table (AiiDA allows `X` and others): no bit says them. */
  unknown: boolean;
}

export function elementMask(symbols: Iterable<string>): ElementMask {
  let lo = 0n;
  let hi = 0n;
  let unknown = false;
  for (const s of symbols) {
    const z = NUMBER.get(s);
    if (z === undefined) unknown = true;
    else if (BigInt(z) <= BITS) lo |= 1n << BigInt(z - 1);
    else hi |= 1n << (BigInt(z) - BITS - 1n);
  }
  return { lo, hi, unknown };
}
