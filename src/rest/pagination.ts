/** Page arithmetic and the numeric query parameters, with the reference's rules and messages. */
import { MAX_COUNT, numberOf } from '../query/index.js';
import { badRequest, inputError } from './errors.js';

export interface PageLinks {
  prev: number | null;
  next: number | null;
  first: number;
  last: number;
}

export interface Window {
  limit: number;
  offset: number;
  pages?: PageLinks;
}

/**
 * A whole number of a query-string parameter: numbers and digit strings, up to 2^53 - 1 in size. The reference
 * truncated fractions (Python's int(): `limit=2.5` read as 2) and crashed on other values and on numbers past
 * what its database takes; here each is refused with a message naming the parameter.
 */
export function toInt(name: string, value: unknown): number {
  const n = numberOf(value);
  if (n === undefined || !Number.isInteger(n)) {
    throw badRequest(
      `${name} must be a whole number, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  }
  if (Math.abs(n) > MAX_COUNT) {
    throw badRequest(`${name} must be at most ${MAX_COUNT} (2^53 - 1), got ${String(value)}`);
  }
  return n;
}

function nonNegative(name: string, value: number): number {
  if (value < 0) throw badRequest(`${name} must not be negative, got ${value}`);
  return value;
}

export function pageWindow(page: number, perpageRaw: unknown, total: number, perpageDefault: number): Window {
  const perpage = perpageRaw === undefined ? perpageDefault : toInt('perpage', perpageRaw);
  if (perpage < 1) throw badRequest(`perpage must be at least 1, got ${perpage}`);
  const last = total === 0 ? 1 : Math.ceil(total / perpage);
  if (page > last || page < 1) {
    throw inputError(`Non existent page requested. The page range is [1 : ${last}]`);
  }
  return {
    limit: perpage,
    offset: (page - 1) * perpage,
    pages: { prev: page > 1 ? page - 1 : null, next: page < last ? page + 1 : null, first: 1, last },
  };
}

export function limitWindow(limitRaw: unknown, offsetRaw: unknown, limitDefault: number): Window {
  const limit = limitRaw === undefined ? limitDefault : nonNegative('limit', toInt('limit', limitRaw));
  const offset = offsetRaw === undefined ? 0 : nonNegative('offset', toInt('offset', offsetRaw));
  return { limit, offset };
}

/** The reference's checks on how page, perpage, limit and offset may be combined. */
export function checkWindowParams(p: {
  page?: number;
  perpage?: unknown;
  limit?: unknown;
  offset?: unknown;
}) {
  const hasLimitOrOffset = p.limit !== undefined || p.offset !== undefined;
  if (p.perpage !== undefined && hasLimitOrOffset) {
    throw badRequest('perpage key is incompatible with limit and offset');
  }
  if (p.page !== undefined && hasLimitOrOffset) {
    throw badRequest('requesting a specific page is incompatible with limit and offset');
  }
  if (p.perpage !== undefined && p.page === undefined) {
    throw badRequest('perpage key requires that a page is requested (i.e. the path must contain /page/)');
  }
}

export function checkLimitCap(limit: number, cap: number) {
  if (limit > cap) throw badRequest(`Limit and perpage cannot be bigger than ${cap}`);
}
