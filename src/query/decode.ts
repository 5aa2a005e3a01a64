/** Turn result rows of rendered SQL back into the QueryBuilder's per-tag dictionaries. */
import { looksInt, markNumber, wholeFloatText } from '../util/exact-json.js';
import { ExactNumber, parseJsonText } from '../util/json-text.js';
import { KeptMap } from '../util/kept-map.js';
import { compiledFunction, propertyName } from '../util/literal-code.js';
import type { Decoder } from './compile.js';
import { StoredDatetime } from './datetime.js';
import type { ColumnType } from './schema.js';

export type ResultRow = Record<string, Record<string, unknown>>;

/** How many projected numbers were decoded as ExactNumber: rows decoded meanwhile are settled. */
const exact = { count: 0, settle: settleRow };

export function decodeValue(value: unknown, type: ColumnType | 'float'): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'float':
      if (typeof value !== 'number' || !looksInt(value)) return value;
      exact.count++;
      return new ExactNumber(value, wholeFloatText(value));
    case 'datetime':
      return value instanceof Date ? StoredDatetime.fromDate(value) : StoredDatetime.fromText(String(value));
    case 'json': {
      if (typeof value !== 'string') return value;
      const parsed = parseJsonText(value);
      if (parsed instanceof ExactNumber) exact.count++;
      return parsed;
    }
    case 'bool':
      return typeof value === 'number' ? value !== 0 : value;
    default:
      return value;
  }
}

/**
 * The decoder of a query's rows (arrays of column values in `columns` order) into its per-tag dictionaries,
 * compiled once per query: each row becomes one object literal per tag.
 */
export function rowDecoder(decoders: Decoder[], columns: string[]): (row: unknown[]) => ResultRow {
  const value = (c: Decoder['columns'][number]) => {
    const at = columns.indexOf(c.as);
    if (at < 0) throw new Error(`the projected column ${c.as} is not selected`);
    const cell = `row[${at}]`;
    return c.type === 'datetime' || c.type === 'json' || c.type === 'bool' || c.type === 'float'
      ? `decode(${cell}, ${JSON.stringify(c.type)})`
      : `(${cell} ?? null)`;
  };
  const fields = (cs: Decoder['columns']) => cs.map((c) => `${propertyName(c.name)}: ${value(c)}`);
  const tags = new Map<string, string[]>();
  for (const d of decoders) {
    let properties = tags.get(d.tag);
    if (!properties) tags.set(d.tag, (properties = []));
    if (d.shape === 'spread') properties.push(...fields(d.columns));
    else if (d.shape === 'entity')
      properties.push(`${propertyName(d.key)}: {${fields(d.columns).join(', ')}}`);
    else if (d.columns[0]) properties.push(`${propertyName(d.key)}: ${value(d.columns[0])}`);
  }
  const literal = [...tags].map(([tag, properties]) => `${propertyName(tag)}: {${properties.join(', ')}}`);
  // A projected value that is a whole-number float (or a long integer) is put in its record as a number,
  // and the record marked; the count tells, at the cost of one comparison a row, whether there is one.
  const source =
    `const seen = exact.count; const out = {${literal.join(', ')}}; ` +
    'return seen === exact.count ? out : exact.settle(out);';
  const decode = compiledDecoders.get(source) ?? compileDecoder(source);
  return (row) => decode(row, decodeValue, exact);
}

type Decode = (row: unknown[], decodeValue: unknown, exact: unknown) => ResultRow;

function compileDecoder(source: string): Decode {
  decodersCompiled++;
  return compiledDecoders.set(source, compiledFunction<Decode>(['row', 'decode', 'exact'], source));
}

/**
 * Compiled decoders by their source: queries of one shape with other values (each body of a script's or the
 * explorer's own query) have plans of their own but decode alike. Compiling one anew cost a never-asked join
 * 18 µs of its 500 in the serving process, and each new one ran in the interpreter, never warm.
 */
const DECODERS_KEPT = 1_000;
const compiledDecoders = new KeptMap<Decode>(DECODERS_KEPT);
let decodersCompiled = 0;

/** How many row decoders were compiled (tests). */
export function rowDecodersCompiled(): number {
  return decodersCompiled;
}

/** ExactNumbers of a row (values of its records, or of the entities they hold) -> marked numbers. */
function settleRow(row: ResultRow): ResultRow {
  const settle = (record: Record<string, unknown>, depth: number) => {
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (value instanceof ExactNumber) {
        record[key] = value.value;
        markNumber(record, key, value.value, value.text);
      } else if (depth > 0 && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        settle(value as Record<string, unknown>, depth - 1);
      }
    }
  };
  for (const record of Object.values(row)) settle(record, 1);
  return row;
}
