/** Parse a v4 query string into the translator's parameters, as aiida-core's parse_query_string does. */
import type { parser as PeggyParser } from 'peggy';
import { parse as parseFields, SyntaxError as FieldSyntaxError } from './parser.generated.js';
import type { ParsedQueryString, QsFilter, QsOperator, QsScalar, QsValue } from './types.js';

/** Query-string errors answer 404, as the reference does (clients depend on the status). */
export class QueryStringError extends Error {
  readonly status = 404;
  override name = 'QueryStringError';
}

/** A date-time value and how many of its components were given (date=1, hours=2, minutes=3, seconds=4). */
class PreciseDate extends Date {
  constructor(
    instant: number,
    readonly precision: number,
  ) {
    super(instant);
  }
}

const WRONG_TIME =
  'time value has wrong format. The right format is <date>T<time><offset>, where <date> is expressed as ' +
  '[YYYY]-[MM]-[DD], <time> is expressed as [HH]:[MM]:[SS], <offset> is expressed as +/-[HH]:[MM] given with ' +
  'respect to UTC';

function makeDatetime(text: string): PreciseDate {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d)(?::(\d\d))?(?::(\d\d))?)?(?:([+-])(\d\d)(?::(\d\d))?)?$/.exec(
    text,
  );
  if (!m) throw new QueryStringError(WRONG_TIME);
  const [, y, mo, d, h = '0', mi = '0', s = '0', sign, oh = '0', om = '0'] = m;
  const nums = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(nums[0], nums[1] - 1, nums[2], nums[3], nums[4], nums[5]);
  const check = new Date(utc);
  const valid =
    check.getUTCFullYear() === nums[0] &&
    check.getUTCMonth() === nums[1] - 1 &&
    check.getUTCDate() === nums[2] &&
    nums[3] < 24 &&
    nums[4] < 60 &&
    nums[5] < 60 &&
    Number(oh) < 24 &&
    Number(om) < 60 &&
    (sign === undefined || m[4] !== undefined);
  if (!valid) throw new QueryStringError(WRONG_TIME);
  const offsetMinutes = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  // The reference counts components by splitting on ":" after turning "T" into ":", offset included.
  const precision = text.replace('T', ':').split(':').length;
  return new PreciseDate(utc - offsetMinutes * 60_000, precision);
}

function makeNumber(text: string): number {
  return Number(text);
}

interface RawField {
  key: string;
  op: QsOperator;
  value: QsValue;
}

const OPERATOR_MAP: Record<QsOperator, string> = {
  '=': '==',
  '!=': '!==',
  '=in=': 'in',
  '=notin=': '!in',
  '>': '>',
  '<': '<',
  '>=': '>=',
  '<=': '<=',
  '=like=': 'like',
  '=ilike=': 'ilike',
};

const RESERVED: Record<string, keyof ParsedQueryString> = {
  limit: 'limit',
  offset: 'offset',
  perpage: 'perpage',
  orderby: 'orderby',
  download: 'download',
  download_format: 'downloadFormat',
  filename: 'filename',
  in_limit: 'inLimit',
  out_limit: 'outLimit',
  attributes: 'attributes',
  attributes_filter: 'attributesFilter',
  extras: 'extras',
  extras_filter: 'extrasFilter',
  full_type: 'fullType',
  profile: 'profile',
};

/** The keys the language reserves (each at most once, with `=`); every other key is a filter. */
export const RESERVED_KEYS: readonly string[] = Object.keys(RESERVED);

/** Python's urllib.parse.unquote: UTF-8 percent-decoding that leaves malformed escapes as they are. */
export function unquote(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

function syntaxError(error: PeggyParser.SyntaxError, input: string): QueryStringError {
  const column = error.location.start.offset + 1;
  const found = error.found === null ? 'the end of the query string' : JSON.stringify(error.found);
  const all = error.expected ?? [];
  const named = all.filter((e) => e.type !== 'class');
  const expected = [...new Set((named.length > 0 ? named : all).map((e) => describe(e)))].join(' or ');
  const near = input.slice(Math.max(0, column - 11), column + 9);
  return new QueryStringError(
    `The query string format is invalid: at column ${column} (near "${near}") expected ${expected || 'something else'}` +
      ` but found ${found}. Columns count from the first character after "?".`,
  );
}

function describe(e: PeggyParser.Expectation): string {
  if (e.type === 'other') return e.description;
  if (e.type === 'literal') return JSON.stringify(e.text);
  if (e.type === 'end') return 'the end of the query string';
  return 'another character';
}

export function parseQueryString(raw: string): ParsedQueryString {
  const { rest: input, profile } = liftProfile(unquote(raw));
  let fields: RawField[];
  try {
    fields = parseFields(input, { makeDatetime, makeNumber }) as RawField[];
  } catch (error) {
    if (error instanceof QueryStringError) throw error;
    if (error instanceof FieldSyntaxError) throw syntaxError(error as PeggyParser.SyntaxError, input);
    throw error;
  }
  const parameters = buildParameters(fields.filter((f) => f.key !== '_'));
  if (profile !== undefined) parameters.profile = profile;
  return parameters;
}

/**
 * `profile=NAME` with NAME unquoted, taken as the text it is. `profile` is Quarry's own key (aiida-core's API has
 * none), and it names a source: names such as `export_0.13_simple` or `arithmetic.add` are no value of the
 * language unquoted, so they were refused or, where only the source was looked for, not seen. A quoted name is
 * read as any string, and `profile` given twice is refused as any reserved key is.
 */
function liftProfile(input: string): { rest: string; profile?: string } {
  const fields = input.split('&');
  const at = fields.flatMap((field, i) => (field.startsWith('profile=') ? [i] : []));
  if (at.length > 1) throw new QueryStringError('You cannot specify profile more than once');
  if (at.length === 0) return { rest: input };
  const value = fields[at[0]!]!.slice('profile='.length);
  if (value === '' || value.startsWith('"')) return { rest: input };
  fields.splice(at[0]!, 1);
  return { rest: fields.join('&'), profile: value };
}

/** The reference's build_translator_parameters: reserved keys once and with "=", the rest become filters. */
function buildParameters(fields: RawField[]): ParsedQueryString {
  const counts = new Map<string, number>();
  for (const f of fields) counts.set(f.key, (counts.get(f.key) ?? 0) + 1);
  for (const key of Object.keys(RESERVED)) {
    if ((counts.get(key) ?? 0) > 1) throw new QueryStringError(`You cannot specify ${key} more than once`);
  }
  const out: ParsedQueryString = { orderby: [], filters: {}, download: true };
  for (const f of fields) {
    const reserved = RESERVED[f.key];
    if (reserved !== undefined) {
      if (f.op !== '=')
        throw new QueryStringError(`only assignment operator '=' is permitted after '${f.key}'`);
      if (reserved === 'orderby') out.orderby.push(...(Array.isArray(f.value) ? f.value : [f.value]));
      else (out as unknown as Record<string, QsValue>)[reserved] = f.value;
      continue;
    }
    const filter = filterOf(f);
    if ((counts.get(f.key) ?? 0) > 1) {
      const existing = out.filters[f.key] as { and: QsFilter[] } | undefined;
      if (existing) existing.and.push(filter);
      else out.filters[f.key] = { and: [filter] };
    } else {
      out.filters[f.key] = filter;
    }
  }
  return out;
}

const DELTAS: Record<number, number> = { 1: 86_400_000, 2: 3_600_000, 3: 60_000, 4: 1000 };

function filterOf(f: RawField): QsFilter {
  if (f.value instanceof PreciseDate && f.op === '=') {
    // Equality with a date-time means "within that day / hour / minute / second".
    const delta = DELTAS[f.value.precision];
    if (delta === undefined) throw new QueryStringError('The datetime resolution is not valid.');
    const start = new Date(f.value.getTime());
    return { and: [{ '>=': start }, { '<': new Date(start.getTime() + delta) }] };
  }
  return { [OPERATOR_MAP[f.op]]: plain(f.value) };
}

/** Values leave the parser as plain Dates, strings, numbers and booleans. */
function plain(value: QsValue): QsValue {
  if (Array.isArray(value)) return value.map((v) => plain(v) as QsScalar);
  return value instanceof PreciseDate ? new Date(value.getTime()) : value;
}
