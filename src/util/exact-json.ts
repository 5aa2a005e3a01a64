/**
 * Numbers written as the data holds them. JSON.parse and JSON.stringify know one kind of number: a float
 * stored as `240.0` comes back as `240`, which a Python client reads as an int, and an int past 2^53 loses
 * its last digits. Node 20 has neither JSON.rawJSON nor the source text in JSON.parse, so values stay plain
 * numbers (every consumer, exporters and derived properties included, computes with them), and what is
 * needed to write them back travels out of sight (a symbol and a toJSON that are not enumerable):
 * - a value read from a JSON text holding such numbers keeps that text, and is written as it (decoded
 *   values are never changed);
 * - a container holding such a number by itself (a projected `240.0` in its record, a computed volume)
 *   carries the text to write for it.
 * `toJson` writes them: through JSON.stringify each such value hands over a marker string, replaced by its
 * text afterwards. An answer without them costs one comparison more than JSON.stringify.
 */
import { randomBytes } from 'node:crypto';

/** Key (an array index as its string) -> the number at that key and the JSON text to write for it. */
export type Marks = Map<string, { value: number; text: string }>;

const MARKS = Symbol('exact numbers');
/** Every whole number held directly by a container marked so is a float (computed values: k-points). */
const ALL_FLOATS = Symbol('all floats');

type Container = Record<string | symbol, unknown>;

/**
 * A marker cannot be forged by data: the nonce is new in every process, and a data string holding U+0000
 * is written `\u0000` too, but never followed by this nonce.
 */
const NONCE = randomBytes(9).toString('base64url');
const MARKER_PREFIX = `\u0000${NONCE}:`;
const MARKER_TEXT = new RegExp(`"\\\\u0000${NONCE}:(\\d+)"`, 'g');

/** Set while toJson serialises: only then do marked containers hand over markers. */
let writing = false;
const texts: string[] = [];

function marker(text: string): string {
  texts.push(text);
  return `${MARKER_PREFIX}${texts.length - 1}`;
}

/** Python's repr of a float that holds a whole number: `240.0`, `-0.0`, `1e+16`. */
export function wholeFloatText(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  return Math.abs(value) < 1e16 ? `${value}.0` : value.toExponential();
}

/** Whether JSON.stringify would write this float without a point or exponent (so Python reads an int). */
export const looksInt = (value: number) => Number.isInteger(value) && Math.abs(value) < 1e21;

function exactToJSON(this: Container): unknown {
  if (!writing) return this;
  const copy = (Array.isArray(this) ? this.slice() : { ...this }) as Container;
  const marks = this[MARKS] as Marks | undefined;
  if (marks) {
    for (const [key, { value, text }] of marks) if (Object.is(copy[key], value)) copy[key] = marker(text);
  }
  if (this[ALL_FLOATS]) {
    for (const key of Object.keys(copy)) {
      const v = copy[key];
      if (typeof v === 'number' && looksInt(v)) copy[key] = marker(wholeFloatText(v));
    }
  }
  return copy;
}

function prepare(container: object): Container {
  const c = container as Container;
  if (!Object.prototype.hasOwnProperty.call(c, 'toJSON')) {
    Object.defineProperty(c, 'toJSON', { value: exactToJSON, configurable: true });
  }
  return c;
}

/** Marks for a container that has none: its numbers to write exactly, by key. */
export function attachMarks<T extends object>(container: T, marks: Marks): T {
  // Two defineProperty calls cost half of one defineProperties with a literal (300 against 600-1100 ns).
  Object.defineProperty(container, 'toJSON', { value: exactToJSON, configurable: true });
  Object.defineProperty(container, MARKS, { value: marks, configurable: true });
  return container;
}

/** Write `text` (valid JSON for the number `value`) for `container[key]` while it holds `value`. */
export function markNumber(container: object, key: string | number, value: number, text: string): void {
  const marks = (container as Container)[MARKS] as Marks | undefined;
  if (marks) marks.set(String(key), { value, text });
  else attachMarks(container, new Map([[String(key), { value, text }]]));
}

/** Written as a float: `container[key]`, a number computed as one (a volume of 27.0). */
export function markFloat(container: object, key: string | number): void {
  const value = (container as Container)[String(key)];
  if (typeof value === 'number' && looksInt(value)) markNumber(container, key, value, wholeFloatText(value));
}

/** Every number in these nested arrays is written as a float (computed coordinates). */
export function markFloats<T>(value: T): T {
  if (Array.isArray(value)) {
    Object.defineProperty(prepare(value), ALL_FLOATS, { value: true, configurable: true });
    for (const item of value) markFloats(item);
  }
  return value;
}

const SOURCE = Symbol('source text');

function sourceToJSON(this: Container): unknown {
  return writing ? marker(this[SOURCE] as string) : this;
}

/** `value`, read from the JSON text `source`, is written as that text. */
export function keepSource<T extends object>(value: T, source: string): T {
  Object.defineProperty(value, 'toJSON', { value: sourceToJSON, configurable: true });
  Object.defineProperty(value, SOURCE, { value: source, configurable: true });
  return value;
}

/** The reader of texts into values whose containers carry their marks (json-text.ts registers it). */
let readMarked: ((text: string) => unknown) | undefined;
const twins = new WeakMap<object, Container>();

export function setMarkedReader(read: (text: string) => unknown): void {
  readMarked = read;
}

/** An equal value, read again from the source text of `value` with every container marked. */
function twinOf(value: Container): Container {
  let twin = twins.get(value);
  if (!twin)
    twins.set(
      value,
      (twin = (readMarked as (text: string) => unknown)(value[SOURCE] as string) as Container),
    );
  return twin;
}

/** Whether `container` carries numbers to write exactly. */
export const hasMarks = (container: object): boolean =>
  (container as Container)[MARKS] !== undefined || (container as Container)[ALL_FLOATS] !== undefined;

/**
 * Keeps `to[toKey]`, copied from `from[fromKey]`, written exactly, for code that copies values into new
 * containers (selected keys, formatted records, nested projections): a number's mark is carried over; a
 * part of a value read from a text (attributes filtered by key) is replaced by its equal, marked twin.
 */
export function carryMark(from: object, fromKey: string, to: object, toKey = fromKey): void {
  let source = from as Container;
  const target = to as Container;
  if (source[SOURCE] !== undefined) {
    if (target[toKey] !== source[fromKey]) return;
    source = twinOf(source);
    const part = source[fromKey];
    if (typeof part === 'object' && part !== null) {
      target[toKey] = part;
      return;
    }
  }
  const mark = (source[MARKS] as Marks | undefined)?.get(fromKey);
  if (mark && Object.is(target[toKey], mark.value)) markNumber(to, toKey, mark.value, mark.text);
}

/** Every mark of `from` whose value `to` holds under the same key. */
export function carryMarks(from: object, to: object): void {
  const marks = (from as Container)[MARKS] as Marks | undefined;
  if (marks) for (const key of marks.keys()) carryMark(from, key, to);
}

/** JSON text written where this value stands, as JSON.rawJSON would (an export embedded in an answer). */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return writing ? marker(this.text) : JSON.parse(this.text);
  }
}

/** JSON.stringify, with marked numbers and RawJson written as the data holds them. */
export function toJson(value: unknown): string {
  texts.length = 0;
  writing = true;
  let out: string | undefined;
  try {
    out = JSON.stringify(value) as string | undefined;
  } finally {
    writing = false;
  }
  if (texts.length === 0 || out === undefined) return out as string;
  try {
    return out.replace(MARKER_TEXT, (_, index: string) => texts[Number(index)] as string);
  } finally {
    texts.length = 0;
  }
}
