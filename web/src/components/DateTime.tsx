/** A date in the reader's time zone, its UTC value on hover. */
import { localDateTime, parseApiDate, utcDateTime } from '../format.js';

export function DateTime({ value }: { value: unknown }) {
  const date = parseApiDate(value);
  if (date === undefined) return <span>{value === null || value === undefined ? '—' : String(value)}</span>;
  return (
    <time dateTime={date.toISOString()} title={utcDateTime(date)}>
      {localDateTime(date)}
    </time>
  );
}
