/**
 * Validated and compiled queries kept by their dictionary. Most requests repeat a few shapes (a page of
 * nodes, one node by its UUID, its links by pk), so validating and compiling each once leaves the database
 * and the answer as the cost of a request.
 */
import type { Dialect } from '../storage/types.js';
import type { PlanHints } from './index.js';
import type { QueryLimits } from './model.js';
import { isParam } from './params.js';

/**
 * The identity of a dictionary as the compiler sees it. Values JSON would merge are told apart: a Date and
 * its ISO text compile differently, and so do an infinite number and null. A Param is written as a marker
 * object and counted: a POSTed dictionary (plain JSON) may hold an object like the marker but no Param, and
 * the dictionaries the REST layer makes hold Params but never a client's objects.
 */
export function planKey(dict: unknown, dialect: Dialect, limits: QueryLimits, hints?: PlanHints): string {
  let params = 0;
  const json = JSON.stringify(dict, function (this: Record<string, unknown>, key: string, value: unknown) {
    const original = this[key];
    if (isParam(original)) return (params++, { '\u0000param': original.name });
    if (original instanceof Date) return { '\u0000date': value };
    if (typeof original === 'number' && !Number.isFinite(original))
      return { '\u0000number': String(original) };
    return value;
  });
  const bounds = `${limits.maxVertices},${limits.maxInList},${limits.maxProjections}`;
  return `${dialect}|${hints?.orderedScan ? 'ordered' : ''}|${bounds}|${params}|${json}`;
}
