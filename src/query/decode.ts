/** Turn result rows of rendered SQL back into the QueryBuilder's per-tag dictionaries. */
import type { SqlRow } from '../storage/types.js';
import type { Decoder } from './compile.js';
import type { ColumnType } from './schema.js';

export type ResultRow = Record<string, Record<string, unknown>>;

/** Datetime text as stored (naive UTC, `T` or space, optional fraction and offset) -> Date. */
export function parseStoredDatetime(text: string): Date {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(text);
  if (!m) return new Date(text);
  const fraction = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '';
  const zone = m[4] && m[4] !== 'Z' ? m[4] : 'Z';
  return new Date(`${m[1]}T${m[2]}${fraction}${zone}`);
}

export function decodeValue(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'datetime':
      return value instanceof Date ? value : parseStoredDatetime(String(value));
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    case 'bool':
      return typeof value === 'number' ? value !== 0 : value;
    default:
      return value;
  }
}

export function decodeRow(row: SqlRow, decoders: Decoder[]): ResultRow {
  const out: ResultRow = {};
  for (const d of decoders) {
    const target = (out[d.tag] ??= {});
    if (d.shape === 'scalar') {
      const c = d.columns[0];
      if (c) target[d.key] = decodeValue(row[c.as], c.type);
      continue;
    }
    const entity: Record<string, unknown> = {};
    for (const c of d.columns) entity[c.name] = decodeValue(row[c.as], c.type);
    if (d.shape === 'entity') target['*'] = entity;
    else Object.assign(target, entity);
  }
  return out;
}
