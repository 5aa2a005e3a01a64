/** RFC 3339 timestamps as the side table compares them: microseconds since 1970 (UTC). */
import { OptimadeError } from './errors.js';

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|([+-])(\d\d):(\d\d))$/;

/** Microseconds since the epoch of an RFC 3339 date-time, or undefined when `text` is not one. */
export function timestampMicros(text: string): number | undefined {
  return preciseTimestamp(text)?.micros;
}

/**
 * An RFC 3339 date-time as whole microseconds since the epoch (`micros`, the fraction's digits past the sixth cut
 * off) and whether that is exactly the instant (`exact`: no nonzero digit past the sixth).
 */
export function preciseTimestamp(text: string): { micros: number; exact: boolean } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || second! > 60)
    return undefined;
  const ms = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  // The fraction's digits read as text: a number would round 0.80626300000001 to 0.806263.
  const digits = (m[7] ?? '.').slice(1);
  const fraction = Number(digits.slice(0, 6).padEnd(6, '0'));
  const exact = /^0*$/.test(digits.slice(6));
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return { micros: (ms - offset * 60_000) * 1000 + fraction, exact };
}

/** A filter's timestamp string: a 400 that says the format when it is not one. */
export function filterTimestamp(text: string, property: string): { micros: number; exact: boolean } {
  const micros = preciseTimestamp(text);
  if (micros === undefined) {
    throw new OptimadeError(
      400,
      'Bad Request',
      `${property} is a timestamp: compare it with an RFC 3339 date-time such as "2024-01-31T12:00:00Z", not ${JSON.stringify(text)}`,
      'filter',
    );
  }
  return micros;
}
