/** Turn result rows of rendered SQL back into the QueryBuilder's per-tag dictionaries. */
import { compiledFunction, propertyName } from '../util/literal-code.js';
import type { Decoder } from './compile.js';
import { StoredDatetime } from './datetime.js';
import type { ColumnType } from './schema.js';

export type ResultRow = Record<string, Record<string, unknown>>;

export function decodeValue(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'datetime':
      return value instanceof Date ? StoredDatetime.fromDate(value) : StoredDatetime.fromText(String(value));
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
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
    return c.type === 'datetime' || c.type === 'json' || c.type === 'bool'
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
  const decode = compiledFunction<(row: unknown[], decodeValue: unknown) => ResultRow>(
    ['row', 'decode'],
    `return {${literal.join(', ')}};`,
  );
  return (row) => decode(row, decodeValue);
}
