/**
 * JSON text from the databases (attributes, extras, projected values) -> values, with what is needed to
 * write back exactly (exact-json.ts) the numbers that JSON.stringify would write differently from the text:
 * floats holding whole numbers (`240.0`, `1e+16`, `-0.0`), which would lose their point, and integers past
 * 2^53, which would lose digits. Most texts have none of them; a quick scan tells so and JSON.parse reads
 * them. The others are read by JSON.parse too, and keep their text to be written as it.
 */
import {
  attachMarks,
  keepSource,
  looksInt,
  setMarkedReader,
  wholeFloatText,
  type Marks,
} from './exact-json.js';

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Whether a text may hold a number to write exactly: a number token whose fraction is all zeros (`240.0`,
 * what Python and PostgreSQL write for whole floats), a positive exponent (`1e+16`, Python's form past
 * 10^16), or 16 digits in a row (an integer past 2^53). Strings are not told apart: a text with a version
 * "1.0" is kept and written as it is, which is exact too. Exponents without a sign (`1e5`) or whole numbers
 * with a negative one (`10e-1`) are not looked for: neither Python, PostgreSQL nor JSON.stringify writes
 * them. Written with indexOf and a sparse scan, a fifth to a quarter of JSON.parse's time on common texts;
 * one regular expression for the same took half (scripts/bench-json-text.ts, docs/compatibility.md).
 */
export function mayHoldExact(t: string): boolean {
  const n = t.length;
  for (let i = t.indexOf('.0'); i !== -1; i = t.indexOf('.0', i + 2)) {
    let j = i + 2;
    while (j < n && t.charCodeAt(j) === 48) j++;
    if ((j === n || !isDigit(t.charCodeAt(j))) && i > 0 && isDigit(t.charCodeAt(i - 1))) return true;
  }
  for (let i = t.indexOf('+'); i !== -1; i = t.indexOf('+', i + 1)) {
    const e = i > 0 ? t.charCodeAt(i - 1) : 0;
    if ((e === 101 || e === 69) && i + 1 < n && isDigit(t.charCodeAt(i + 1))) return true;
  }
  return hasDigitRun(t);
}

const RUN = 16;

/**
 * Whether `t` has 16 digits in a row, probing one position in 16: such a run covers a probe and one of the
 * positions 8 before or after it, and only runs passing both tests are measured. Reads stay within the
 * text: charCodeAt past the end makes V8 leave its fast code.
 */
function hasDigitRun(t: string): boolean {
  const n = t.length;
  for (let i = RUN - 1; i < n; i += RUN) {
    if (!isDigit(t.charCodeAt(i))) continue;
    if (!((i + 8 < n && isDigit(t.charCodeAt(i + 8))) || isDigit(t.charCodeAt(i - 8)))) continue;
    let start = i;
    while (start > 0 && isDigit(t.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && isDigit(t.charCodeAt(end))) end++;
    if (end - start >= RUN) return true;
  }
  return false;
}

/** A number JSON.stringify cannot write back as it stands, at the top of a text (`240.0` projected). */
export class ExactNumber {
  constructor(
    readonly value: number,
    readonly text: string,
  ) {}
}

/**
 * The value of a JSON text, as JSON.parse reads it. When the text may hold numbers that JSON.stringify would
 * write differently, the value keeps the text to be written as it (exact-json.ts); a text that is one such
 * number gives an ExactNumber, for the caller to mark where it puts the value.
 */
export function parseJsonText(source: string): unknown {
  if (!mayHoldExact(source)) return JSON.parse(source);
  const value: unknown = JSON.parse(source);
  if (typeof value === 'object' && value !== null) return keepSource(value, source);
  if (typeof value === 'number') {
    const token = source.trim();
    const exact = exactText(token, /[.eE]/.test(token), value);
    if (exact !== undefined) return new ExactNumber(value, exact);
  }
  return value;
}

/**
 * The value of a JSON text with whole-number floats and long integers marked in the containers that hold
 * them, read by a parser of our own (three times JSON.parse's time): for parts of a value taken apart.
 */
export function parseMarked(source: string): unknown {
  text = source;
  at = 0;
  escapeAt = source.indexOf('\\');
  try {
    const value = readValue();
    skipSpace();
    if (at !== text.length) return JSON.parse(source);
    return value;
  } catch (error) {
    // Anything our reader refuses, JSON.parse refuses too, with its own message.
    if (error instanceof NotJson) return JSON.parse(source);
    throw error;
  } finally {
    text = '';
  }
}

setMarkedReader(parseMarked);

class NotJson extends Error {}

let text = '';
let at = 0;

/** The text to write for the number token `token` of value `value`, when JSON.stringify would not. */
function exactText(token: string, isFloat: boolean, value: number): string | undefined {
  if (isFloat) return looksInt(value) ? wholeFloatText(value) : undefined;
  // Integers keep their digits; a leading minus of zero is dropped, as Python's int does.
  return Number.isSafeInteger(value) ? undefined : token;
}

function skipSpace(): void {
  let c = text.charCodeAt(at);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
}

function readValue(): unknown {
  skipSpace();
  const c = text.charCodeAt(at);
  if (c === 123) return readObject();
  if (c === 91) return readArray();
  if (c === 34) return readString();
  if (c === 45 || (c >= 48 && c <= 57)) return readNumberToken();
  if (text.startsWith('true', at)) return ((at += 4), true);
  if (text.startsWith('false', at)) return ((at += 5), false);
  if (text.startsWith('null', at)) return ((at += 4), null);
  throw new NotJson();
}

/** The text of the number read last, and whether it is a float (a fraction or an exponent). */
let token = '';
let tokenIsFloat = false;

function digits(): number {
  const start = at;
  while (isDigit(text.charCodeAt(at))) at++;
  return at - start;
}

/** A number by JSON's grammar (JSON.parse's: no `1.`, `.5`, `+1` or `01`). */
function readNumberToken(): number {
  const start = at;
  if (text.charCodeAt(at) === 45) at++;
  const first = text.charCodeAt(at);
  const whole = digits();
  if (whole === 0 || (first === 48 && whole > 1)) throw new NotJson();
  tokenIsFloat = false;
  if (text.charCodeAt(at) === 46) {
    at++;
    if (digits() === 0) throw new NotJson();
    tokenIsFloat = true;
  }
  const e = text.charCodeAt(at);
  if (e === 101 || e === 69) {
    at++;
    const sign = text.charCodeAt(at);
    if (sign === 43 || sign === 45) at++;
    if (digits() === 0) throw new NotJson();
    tokenIsFloat = true;
  }
  token = text.slice(start, at);
  return Number(token);
}

/** Where the next backslash of the text is (-1: none), so that strings need not look for one each. */
let escapeAt = -1;

/**
 * A string: sliced out when it has no escapes (control characters, which JSON.parse refuses, are let
 * through: the databases write valid JSON); JSON.parse reads those that have escapes.
 */
function readString(): string {
  const start = ++at;
  const close = text.indexOf('"', start);
  if (close === -1) throw new NotJson();
  if (escapeAt !== -1 && escapeAt < start) escapeAt = text.indexOf('\\', start);
  const escape = escapeAt;
  if (escape === -1 || escape > close) {
    at = close + 1;
    return text.slice(start, close);
  }
  let end = escape;
  for (;;) {
    const c = text.charCodeAt(end);
    if (Number.isNaN(c)) throw new NotJson();
    if (c === 92) end += 2;
    else if (c === 34) break;
    else end++;
  }
  at = end + 1;
  try {
    return JSON.parse(text.slice(start - 1, at)) as string;
  } catch {
    throw new NotJson();
  }
}

/** The exact text of the number just read, or undefined when JSON.stringify writes it back as it is. */
const exactOf = (value: unknown) =>
  typeof value === 'number' ? exactText(token, tokenIsFloat, value) : undefined;

/** Notes the number just read, at `key`, in `marks` (made when first needed) when it must be written exactly. */
function noted(marks: Marks | undefined, key: string, value: unknown): Marks | undefined {
  const text = exactOf(value);
  if (text === undefined) return marks;
  return (marks ?? new Map()).set(key, { value: value as number, text });
}

// Arrays and objects apart, each store site sees one kind of container; marks are attached once, at the end.
function readArray(): unknown[] {
  at++;
  const out: unknown[] = [];
  let marks: Marks | undefined;
  skipSpace();
  if (text.charCodeAt(at) === 93) return (at++, out);
  for (;;) {
    const value = readValue();
    marks = noted(marks, String(out.length), value);
    out.push(value);
    skipSpace();
    const c = text.charCodeAt(at++);
    if (c === 93) return marks ? attachMarks(out, marks) : out;
    if (c !== 44) throw new NotJson();
  }
}

function readObject(): Record<string, unknown> {
  at++;
  const out: Record<string, unknown> = {};
  let marks: Marks | undefined;
  skipSpace();
  if (text.charCodeAt(at) === 125) return (at++, out);
  for (;;) {
    skipSpace();
    if (text.charCodeAt(at) !== 34) throw new NotJson();
    const key = readString();
    skipSpace();
    if (text.charCodeAt(at++) !== 58) throw new NotJson();
    const value = readValue();
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    } else out[key] = value;
    marks = noted(marks, key, value);
    skipSpace();
    const c = text.charCodeAt(at++);
    if (c === 125) return marks ? attachMarks(out, marks) : out;
    if (c !== 44) throw new NotJson();
  }
}
