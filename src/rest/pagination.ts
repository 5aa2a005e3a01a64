/** Page arithmetic and the numeric query parameters, with the reference's rules and messages. */
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
 * Python's int() on a query-string value: numbers truncate, digit strings parse. Anything else is refused
 * with a message naming the parameter (the reference crashed with a 500 there).
 */
export function toInt(name: string, value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  throw badRequest(`${name} must be an integer, got ${JSON.stringify(value)}`);
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
