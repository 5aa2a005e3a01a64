/** Turning query rows into the v4 JSON shapes. */
import { fullTypeOf } from '../domain/full-type.js';
import { StoredDatetime } from '../query/index.js';
import { carryMarks, hasMarks } from '../util/exact-json.js';
import { KeptMap } from '../util/kept-map.js';
import { compiledFunction, propertyName } from '../util/literal-code.js';

/** Dates are RFC 1123 strings in GMT without fractions of a second, as the reference's Flask encoder writes. */
export function formatValue(value: unknown): unknown {
  return value instanceof StoredDatetime ? value.toHttpDate() : value;
}

/** A record's fields, by name. */
type Fields = Record<string, unknown>;
type Format = (record: Fields) => Fields;

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Formatters by the record keys they take, in order; a few shapes of answers make most of the traffic. */
const FORMATS_KEPT = 1_000;
const formats = new KeptMap<Format>(FORMATS_KEPT);

/**
 * The formatter of records with `keys`, in that order: one object literal with the keys sorted, dates
 * formatted, and `full_type` computed when `withFullType`.
 */
function formatFor(keys: string[], withFullType: boolean): Format {
  const id = `${withFullType ? 'n' : 'r'}${JSON.stringify(keys)}`;
  const kept = formats.get(id);
  if (kept) return kept;
  const all = withFullType && !keys.includes('full_type') ? [...keys, 'full_type'] : keys;
  const properties = [...all].sort().map((key) => {
    const value =
      withFullType && key === 'full_type'
        ? 'fullType(r["node_type"], r["process_type"])'
        : `format(r[${JSON.stringify(key)}])`;
    return `${propertyName(key)}: ${value}`;
  });
  const compiled = compiledFunction<(r: Fields, format: unknown, fullType: unknown) => Fields>(
    ['r', 'format', 'fullType'],
    `return {${properties.join(', ')}};`,
  );
  return formats.set(id, (record) => {
    const out = compiled(record, formatValue, fullTypeOf);
    // Projected numbers to write exactly (`attributes.x` of 240.0) stay marked in the formatted record.
    if (hasMarks(record)) carryMarks(record, out);
    return out;
  });
}

/** The shapes formatted last, tried before the kept map: comparing key lists costs less than naming them. */
const RECENT_SHAPES = 8;
const recent: { withFullType: boolean; keys: string[]; format: Format }[] = [];

function formatOf(keys: string[], withFullType: boolean): Format {
  for (const shape of recent) {
    if (shape.withFullType === withFullType && sameKeys(shape.keys, keys)) return shape.format;
  }
  const format = formatFor(keys, withFullType);
  if (recent.unshift({ withFullType, keys, format }) > RECENT_SHAPES) recent.pop();
  return format;
}

/**
 * Formats records, most often all the rows of one answer (same keys in the same order): each record's
 * projected fields with dates formatted, keys sorted as the reference's JSON encoder sorts them. Node records
 * (`withFullType`) gain `full_type` from their node_type and process_type.
 */
export function recordFormatter(withFullType = false): Format {
  let keys: string[] = [];
  let format: Format | undefined;
  return (record) => {
    const own = Object.keys(record);
    if (!format || !sameKeys(own, keys)) [keys, format] = [own, formatOf(own, withFullType)];
    return format(record);
  };
}
