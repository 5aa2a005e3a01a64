/**
 * Random pieces of requests, drawn from a seeded generator: the edge cases that broke servers before (huge and
 * fractional numbers, long and deeply nested values, NUL, backslashes, unicode, odd percent-encoding) mixed
 * with ordinary values, so that most requests get past the first check and reach the query engine.
 */
import { Rng } from '../../src/generate/prng.js';

export { Rng };

/** Numbers around every boundary the server has: 0, 2^31, 2^53, 1e99, fractions, negatives. */
const NUMBERS = [
  0,
  1,
  2,
  3,
  5,
  10,
  20,
  399,
  400,
  401,
  -1,
  -0,
  0.5,
  1.5,
  2.5,
  -1.5,
  1e-9,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 63,
  2 ** 64,
  1e21,
  1e99,
  1e308,
  -1e99,
  Number.MIN_VALUE,
];
const NUMBER_TEXT = ['1e999', '-1e999', '00', '007', '1.', '.5', '+5', '1e-999', '9'.repeat(400), '0x10'];
const WORDS = ['id', 'pk', 'ctime', '-ctime', 'label', 'node_type', 'uuid', 'true', 'false', 'null', 'None'];
const SPECIAL = [
  '',
  ' ',
  '%',
  '_',
  '%%',
  '\\',
  'a\\',
  '\\%',
  '"',
  '""',
  "'",
  '\u0000',
  'a\u0000b',
  '\n',
  '\t',
  '\u2028',
  'é',
  'Ünïcödé',
  '日本語',
  '😀',
  '\ud800',
  '\udfff',
  '../..',
  '/',
  '.',
  '..',
  '&',
  '=',
  '=like=',
  '?',
  '#',
  '+',
  '<script>',
  'data.core.dict.Dict.|',
  'process.%|%',
  'data.%',
  '2020-01-01T00:00:00',
  '2020-13-45',
  '1',
  '-1',
];

export function number(rng: Rng): number {
  if (rng.chance(0.5)) return rng.pick(NUMBERS);
  return rng.chance(0.5) ? rng.int(-5, 3000) : (rng.next() - 0.5) * 10 ** rng.int(0, 30);
}

export function numberText(rng: Rng): string {
  return rng.chance(0.3) ? rng.pick(NUMBER_TEXT) : String(number(rng));
}

/** A string of one of many kinds; `long` allows lengths past the server's bounds. */
export function text(rng: Rng, long = true): string {
  const roll = rng.next();
  if (roll < 0.35) return rng.pick(SPECIAL);
  if (roll < 0.55) return rng.pick(WORDS);
  if (roll < 0.8) {
    let out = '';
    const n = rng.int(1, 12);
    for (let i = 0; i < n; i++)
      out += String.fromCharCode(rng.chance(0.8) ? rng.int(32, 126) : rng.int(0, 0xffff));
    return out;
  }
  if (roll < 0.9 || !long) return rng.pick(SPECIAL) + rng.pick(WORDS) + rng.pick(SPECIAL);
  // Long strings around the pattern bound (10,000) and SQLite's (50,000 bytes).
  const unit = rng.pick(['a', '%', 'a%', '_', '\\', 'é', '😀', '%a']);
  return unit.repeat(Math.ceil(rng.pick([1000, 10_000, 10_001, 25_001, 60_000]) / unit.length));
}

export function scalar(rng: Rng): unknown {
  const roll = rng.next();
  if (roll < 0.35) return number(rng);
  if (roll < 0.75) return text(rng);
  if (roll < 0.85) return rng.chance(0.5);
  return null;
}

/** A JSON value; now and then nested past the value-depth bound, or as wide as the bounds allow. */
export function json(rng: Rng, depth = 0): unknown {
  if (rng.chance(0.02)) return nestedValue(rng.pick([10, 31, 33, 200, 1000]), rng.chance(0.5));
  if (depth > 3 || rng.chance(0.55)) return scalar(rng);
  if (rng.chance(0.5)) return Array.from({ length: rng.int(0, 4) }, () => json(rng, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = rng.int(0, 3); i > 0; i--) out[text(rng, false)] = json(rng, depth + 1);
  return out;
}

/** A value nested `levels` deep, as lists or objects. */
export function nestedValue(levels: number, asObjects: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = asObjects ? { k: value } : [value];
  return value;
}

/** Percent-encoding: none, all of it, some characters, or malformed escapes. */
export function encode(rng: Rng, raw: string): string {
  const roll = rng.next();
  if (roll < 0.45) return escapeAll(raw);
  if (roll < 0.65) return [...raw].map((c) => (/[A-Za-z0-9=&\-_.~]/.test(c) ? c : escape(c))).join('');
  if (roll < 0.85) {
    return [...raw].map((c) => (rng.chance(0.3) || UNSAFE.test(c) ? escape(c) : c)).join('');
  }
  const odd = rng.pick(['%', '%2', '%zz', '%C3', '%FF', '%E2%82', '%00', '%25', '%2525', '%u0041', '%C0%AF']);
  const at = rng.int(0, raw.length);
  return escapeAll(raw.slice(0, at)) + odd + escapeAll(raw.slice(at));
}

/** Percent-escapes of one character's UTF-8 bytes (lone surrogates become U+FFFD, as in a real client). */
function escape(c: string): string {
  return [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** What a client must escape in a URL: whitespace, `#`, controls and everything past ASCII (by code point). */
const UNSAFE = /[\s#\p{Cc}\u{80}-\u{10ffff}]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

function escapeAll(raw: string): string {
  return raw.replace(UNSAFE_ALL, (c) => escape(c));
}
