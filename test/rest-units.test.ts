import { describe, expect, it } from 'vitest';
import { isUuidPrefix } from '../src/rest/identifiers.js';
import { checkWindowParams, limitWindow, pageWindow, toInt } from '../src/rest/pagination.js';
import { HttpError } from '../src/rest/errors.js';

describe('uuid prefixes in paths', () => {
  it('accepts what Python uuid.UUID accepts after padding', () => {
    for (const ok of ['0', 'b', 'BECFC71F-FA63-433F-9919-1493F2E1CC76', '495a368d', '495a368d-ff38']) {
      expect(isUuidPrefix(ok)).toBe(true);
    }
    for (const bad of ['zzzz', 'page', 'statistics', '495a368d-ff38-485a-a58c-7b5a4848f543-00']) {
      expect(isUuidPrefix(bad)).toBe(false);
    }
  });
});

describe('pagination', () => {
  it('computes the window and the neighbours', () => {
    expect(pageWindow(2, 3, 12, 20)).toEqual({
      limit: 3,
      offset: 3,
      pages: { prev: 1, next: 3, first: 1, last: 4 },
    });
    expect(pageWindow(1, undefined, 0, 20).pages).toEqual({ prev: null, next: null, first: 1, last: 1 });
  });

  it('answers 404 for a page out of range, as the reference', () => {
    expect(() => pageWindow(117, undefined, 2319, 20)).toThrow(/page range is \[1 : 116\]/);
    try {
      pageWindow(0, undefined, 5, 20);
    } catch (e) {
      expect((e as HttpError).status).toBe(404);
    }
  });

  it('refuses inconsistent combinations with 400', () => {
    expect(() => checkWindowParams({ page: 1, perpage: 5, limit: 3 })).toThrow(/incompatible with limit/);
    expect(() => checkWindowParams({ perpage: 5 })).toThrow(/requires that a page is requested/);
    expect(() => checkWindowParams({ page: 2, offset: 1 })).toThrow(/specific page is incompatible/);
  });

  it('reads whole numbers and digit strings, and refuses fractions, words and numbers past 2^53 - 1', () => {
    expect(toInt('limit', 5)).toBe(5);
    expect(toInt('limit', '12')).toBe(12);
    expect(toInt('offset', 2 ** 53 - 1)).toBe(2 ** 53 - 1);
    expect(() => toInt('limit', 5.7)).toThrow(/limit must be a whole number, got 5.7/);
    expect(() => toInt('limit', 'abc')).toThrow(/limit must be a whole number/);
    expect(() => toInt('offset', 2 ** 53)).toThrow(/offset must be at most 9007199254740991/);
    expect(() => toInt('offset', '9007199254740992')).toThrow(/at most/);
    expect(() => toInt('in_limit', 1e99)).toThrow(/in_limit must be at most/);
    expect(() => toInt('limit', Infinity)).toThrow(/limit must be a whole number, got Infinity/);
    expect(() => limitWindow(-1, undefined, 400)).toThrow(/must not be negative/);
    expect(limitWindow(undefined, undefined, 400)).toEqual({ limit: 400, offset: 0 });
  });
});
