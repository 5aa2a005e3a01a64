/** Turning query rows into the v4 JSON shapes. */
import { fullTypeOf } from '../domain/full-type.js';

/** Dates are RFC 1123 strings in GMT without fractions of a second, as the reference's Flask encoder writes. */
export function formatValue(value: unknown): unknown {
  return value instanceof Date ? value.toUTCString() : value;
}

/** One entity's projected fields, with dates formatted; keys sorted as the reference's JSON encoder sorts them. */
export function formatRecord(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) out[key] = formatValue(record[key]);
  return out;
}

/** A node record gains `full_type` from its node_type and process_type. */
export function formatNodeRecord(record: Record<string, unknown>): Record<string, unknown> {
  return formatRecord({ ...record, full_type: fullTypeOf(record.node_type, record.process_type) });
}
