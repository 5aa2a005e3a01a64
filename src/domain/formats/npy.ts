/** Reading numpy `.npy` files, the format AiiDA stores ArrayData arrays in. */

export interface NpyArray {
  shape: number[];
  /** Whether the values are floats (written `1.0` by Python) rather than ints or booleans. */
  isFloat: boolean;
  isBool: boolean;
  data: number[];
}

export class NpyError extends Error {}

/**
 * Most values, and most nested lists, one array is read into (2^23: 64 MiB of float64): the JSON written from
 * them is several times larger, and a shape such as (1000000000, 0) holds no value yet asks for a billion lists.
 */
export const MOST_NPY_VALUES = 2 ** 23;

/** An array of strings (`<U2`, `|S12`: numpy's unicode and bytes dtypes), each without its padding NULs. */
export interface NpyStrings {
  shape: number[];
  strings: string[];
}

/** Whether the .npy file holds strings (numpy's `U` and `S` dtypes), read by readNpyStrings, not readNpy. */
export function holdsStrings(buffer: Buffer): boolean {
  try {
    return /^[<>|=]?[US]\d+$/.test(npyHeader(buffer).descr);
  } catch {
    return false;
  }
}

export function readNpyStrings(buffer: Buffer): NpyStrings {
  const { descr, fortran, shape, count, body } = npyHeader(buffer);
  const match = /^([<>|=]?)([US])(\d+)$/.exec(descr);
  if (!match) throw new NpyError(`the .npy dtype ${descr} is not one of strings`);
  const [, order, kind, width] = match as unknown as [string, string, 'U' | 'S', string];
  // A unicode character is 4 bytes (UTF-32), a bytes one is 1.
  const size = Number(width) * (kind === 'U' ? 4 : 1);
  if (body.length < count * size) throw new NpyError('the .npy file is truncated');
  const strings = Array.from({ length: count }, (_, i) => {
    const item = body.subarray(i * size, (i + 1) * size);
    if (kind === 'S') {
      const end = item.indexOf(0);
      return item.subarray(0, end === -1 ? item.length : end).toString('utf8');
    }
    let text = '';
    for (let at = 0; at < item.length; at += 4) {
      const code = order === '>' ? item.readUInt32BE(at) : item.readUInt32LE(at);
      if (code === 0) break;
      if (code > 0x10ffff) throw new NpyError(`the .npy file holds ${code}, which is no character`);
      text += String.fromCodePoint(code);
    }
    return text;
  });
  return { shape, strings: fortran ? transpose(strings, shape) : strings };
}

/** A string array as the nested lists `array.tolist()` gives. */
export function stringsToNestedList(array: NpyStrings): unknown {
  return nest(array.shape, array.strings);
}

function npyHeader(buffer: Buffer) {
  if (buffer.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new NpyError('not a .npy file');
  const major = buffer[6] as number;
  const headerLength = major === 1 ? buffer.readUInt16LE(8) : buffer.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buffer.subarray(start, start + headerLength).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '';
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number);
  if (!descr) throw new NpyError('no dtype in the .npy header');
  if (!shape.every((n) => Number.isSafeInteger(n) && n >= 0))
    throw new NpyError(`the .npy shape (${shapeText}) is not a list of sizes`);
  // The lists tolist() makes at each depth, the values at the last: none may pass the bound.
  let count = 1;
  for (const n of shape) {
    count *= n;
    if (count > MOST_NPY_VALUES)
      throw new NpyError(
        `the .npy shape (${shapeText}) holds more than ${MOST_NPY_VALUES} values or lists; this server ` +
          'converts smaller arrays: download the .npy file as it is',
      );
  }
  return { descr, fortran, shape, shapeText, count, body: buffer.subarray(start + headerLength) };
}

export function readNpy(buffer: Buffer): NpyArray {
  const { descr, fortran, shape, count, body } = npyHeader(buffer);
  const little = descr[0] !== '>';
  const kind = descr.slice(1);
  const read: Record<string, [number, (offset: number) => number]> = {
    f8: [8, (o) => (little ? body.readDoubleLE(o) : body.readDoubleBE(o))],
    f4: [4, (o) => (little ? body.readFloatLE(o) : body.readFloatBE(o))],
    i8: [8, (o) => Number(little ? body.readBigInt64LE(o) : body.readBigInt64BE(o))],
    i4: [4, (o) => (little ? body.readInt32LE(o) : body.readInt32BE(o))],
    i2: [2, (o) => (little ? body.readInt16LE(o) : body.readInt16BE(o))],
    i1: [1, (o) => body.readInt8(o)],
    u1: [1, (o) => body.readUInt8(o)],
    b1: [1, (o) => body.readUInt8(o)],
  };
  const reader = read[kind];
  if (!reader) throw new NpyError(`unsupported .npy dtype ${descr}`);
  const [size, get] = reader;
  if (body.length < count * size) throw new NpyError('the .npy file is truncated');
  const flat = Array.from({ length: count }, (_, i) => get(i * size));
  return {
    shape,
    isFloat: kind.startsWith('f'),
    isBool: kind === 'b1',
    data: fortran ? transpose(flat, shape) : flat,
  };
}

/** Column-major (Fortran) order -> row-major. */
function transpose<T>(flat: T[], shape: number[]): T[] {
  const out = new Array<T>(flat.length);
  const strides = shape.map((_, i) => shape.slice(0, i).reduce((a, b) => a * b, 1));
  for (let i = 0; i < flat.length; i++) {
    let rest = i;
    let offset = 0;
    for (let d = shape.length - 1; d >= 0; d--) {
      offset += (rest % shape[d]!) * strides[d]!;
      rest = Math.floor(rest / shape[d]!);
    }
    out[i] = flat[offset]!;
  }
  return out;
}

/** The nested lists `array.tolist()` gives, with floats marked for Python-style output. */
export function toNestedList(array: NpyArray, wrap: (v: number) => unknown): unknown {
  return nest(
    array.shape,
    array.data.map((v) => (array.isBool ? v !== 0 : wrap(v))),
  );
}

function nest(shape: number[], values: unknown[]): unknown {
  const build = (dims: number[], offset: number): unknown => {
    if (dims.length === 0) return values[offset];
    const [n, ...rest] = dims as [number, ...number[]];
    const step = rest.reduce((a, b) => a * b, 1);
    return Array.from({ length: n }, (_, i) => build(rest, offset + i * step));
  };
  return build(shape, 0);
}
