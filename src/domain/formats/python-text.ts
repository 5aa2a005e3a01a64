/**
 * Numbers and JSON written as Python writes them (repr of floats, json.dumps), so that exports are
 * byte-identical to aiida's. JSON.parse cannot tell 1.0 from 1: callers say which numbers are floats.
 */

/** Python's text of the floats that have no digits: `nan`, `inf`, `-inf` (repr and format alike). */
const nonFinite = (x: number) => (Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf');

/** Python's repr(float): shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16. */
export function pyFloat(x: number): string {
  if (!Number.isFinite(x)) return nonFinite(x);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let body: string;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
      const frac = digits.slice(exp + 1);
      body = `${intPart}.${frac || '0'}`;
    } else {
      body = `0.${'0'.repeat(-exp - 1)}${digits}`;
    }
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return negative ? `-${body}` : body;
}

/** Python's format(x, '.Nf'), including the sign of negative zero. */
export function pyFixed(x: number, decimals: number, width = 0): string {
  if (!Number.isFinite(x)) return nonFinite(x).padStart(width);
  const text =
    Object.is(x, -0) || (x < 0 && Number(x.toFixed(decimals)) === 0)
      ? `-${Math.abs(x).toFixed(decimals)}`
      : x.toFixed(decimals);
  return text.padStart(width);
}

/** A number that Python holds as a float (written `1.0`), as opposed to an int. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/**
 * How NaN and infinities are written: `null` in JSON answers and files (valid JSON, as aiida's clean_array
 * writes the arrays of ArrayData), or `NaN`/`Infinity` as json.dumps writes them, for JSON that only Python
 * reads (the data embedded in exported matplotlib scripts).
 */
export type NonFinite = 'null' | 'python';

const jsonNonFinite = (x: number, mode: NonFinite) =>
  mode === 'null' ? 'null' : Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';

/**
 * Python's json.dumps: default settings (`, ` and `: ` separators, ASCII-only output), or with `indent`
 * (one item a line, `,` at line ends, empty lists and objects as `[]` and `{}`).
 */
export function pyJson(value: unknown, indent?: number, nonFiniteAs: NonFinite = 'null', depth = 0): string {
  if (value instanceof PyFloat || typeof value === 'number') {
    const x = value instanceof PyFloat ? value.value : value;
    if (!Number.isFinite(x)) return jsonNonFinite(x, nonFiniteAs);
    return typeof value === 'number' && Number.isInteger(x) ? String(x) : pyFloat(x);
  }
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  const items = Array.isArray(value)
    ? value.map((v) => pyJson(v, indent, nonFiniteAs, depth + 1))
    : Object.entries(value as Record<string, unknown>).map(
        ([k, v]) => `${pyJson(k)}: ${pyJson(v, indent, nonFiniteAs, depth + 1)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (indent === undefined) return `${open}${items.join(', ')}${close}`;
  if (items.length === 0) return `${open}${close}`;
  const inner = '\n' + ' '.repeat(indent * (depth + 1));
  return `${open}${inner}${items.join(`,${inner}`)}\n${' '.repeat(indent * depth)}${close}`;
}

/** Mark every number of a nested list as a float. */
export function floats(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(floats);
  return typeof value === 'number' ? new PyFloat(value) : value;
}
