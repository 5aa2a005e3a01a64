import { describe, expect, it } from 'vitest';
import { StoredDatetime } from '../src/query/index.js';
import { recordFormatter } from '../src/rest/format.js';

const httpDate = (text: string) => StoredDatetime.fromText(text).toHttpDate();

describe('formatting records', () => {
  it('writes dates as RFC 1123 GMT strings without fractions and sorts keys', () => {
    const time = StoredDatetime.fromDate(new Date(Date.UTC(2019, 2, 20, 11, 49, 40, 504)));
    const out = recordFormatter()({ time, label: 'x', id: 13 });
    expect(out).toEqual({ id: 13, label: 'x', time: 'Wed, 20 Mar 2019 11:49:40 GMT' });
    expect(Object.keys(out)).toEqual(['id', 'label', 'time']);
  });

  it('sorts the keys of each record, also when records of one answer differ in their keys', () => {
    const format = recordFormatter();
    expect(Object.keys(format({ b: 1, a: 2 }))).toEqual(['a', 'b']);
    expect(Object.keys(format({ b: 1, a: 2 }))).toEqual(['a', 'b']);
    expect(format({ d: 1, c: 2, b: 3 })).toEqual({ b: 3, c: 2, d: 1 });
    expect(Object.keys(format({ d: 1, c: 2, b: 3 }))).toEqual(['b', 'c', 'd']);
    expect(Object.keys(format({ z: 1, a: 2 }))).toEqual(['a', 'z']);
  });

  it('adds full_type to nodes', () => {
    const format = recordFormatter(true);
    expect(format({ node_type: 'data.core.int.Int.', process_type: null }).full_type).toBe(
      'data.core.int.Int.|',
    );
    expect(format({ id: 3 }).full_type).toBeNull();
  });
});

describe('stored datetimes', () => {
  it('write the UTC text of both databases as the Date of the same instant would', () => {
    for (const [text, iso] of [
      ['2019-03-20 11:49:40.504123', '2019-03-20T11:49:40.504Z'],
      ['2019-03-20T11:49:40', '2019-03-20T11:49:40Z'],
      ['2019-03-20 11:49:40.5+00:00', '2019-03-20T11:49:40.5Z'],
      ['2024-02-29 23:59:59.999999+00', '2024-02-29T23:59:59.999Z'],
      ['2000-01-01 00:00:00Z', '2000-01-01T00:00:00Z'],
      ['1900-03-01 00:00:00', '1900-03-01T00:00:00Z'],
      ['2100-12-31 12:00:00-00:00', '2100-12-31T12:00:00Z'],
    ] as const) {
      expect(httpDate(text), text).toBe(new Date(iso).toUTCString());
    }
  });

  it('write the days of four centuries as Date does, at any time of the day, the same day again and again', () => {
    const wrong: string[] = [];
    const check = (text: string, instant: Date) => {
      if (httpDate(text) !== instant.toUTCString()) wrong.push(text);
    };
    const start = Date.UTC(1900, 0, 1);
    const days = Array.from({ length: 146_097 }, (_, day) => day);
    // Every 11th day (every weekday, day of the month and month), and every day of 1900-1901, 2000-2001 and 2024-2025.
    const leapYears = (day: number) => [0, 36_524, 45_290].some((first) => day >= first && day < first + 731);
    for (const day of days.filter((d) => d % 11 === 0 || leapYears(d))) {
      const instant = new Date(start + day * 86_400_000 + ((day * 7_919) % 86_400) * 1000);
      check(instant.toISOString().replace('T', ' ').replace('.000Z', '.123456'), instant);
      // The same day at another time: the day's part is kept, the time is not.
      const later = new Date(instant.getTime() - (instant.getTime() % 86_400_000) + 86_399_000);
      check(later.toISOString().slice(0, 19), later);
    }
    expect(wrong).toEqual([]);
  });

  it('move other offsets to GMT', () => {
    expect(httpDate('2019-03-20 23:30:00+02:00')).toBe('Wed, 20 Mar 2019 21:30:00 GMT');
    expect(httpDate('2019-03-20 23:30:00.25-0130')).toBe('Thu, 21 Mar 2019 01:00:00 GMT');
  });

  it('leave days past the end of a month and malformed text to Date, as before', () => {
    expect(httpDate('2021-02-29 00:00:00')).toBe(new Date('2021-02-29T00:00:00Z').toUTCString());
    expect(httpDate('2021-13-01 00:00:00')).toBe('Invalid Date');
    expect(httpDate('yesterday')).toBe('Invalid Date');
  });

  it('serialise to JSON as answers write them', () => {
    expect(JSON.stringify({ t: StoredDatetime.fromText('2019-03-20 11:49:40') })).toBe(
      '{"t":"Wed, 20 Mar 2019 11:49:40 GMT"}',
    );
    expect(StoredDatetime.fromText('2019-03-20 11:49:40.25').toDate().getTime()).toBe(
      Date.UTC(2019, 2, 20, 11, 49, 40, 250),
    );
  });
});
