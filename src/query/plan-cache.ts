/**
 * Validated and compiled queries kept by their dictionary. Most requests repeat a few shapes (a page of
 * nodes, one node by its UUID, its links by pk), so validating and compiling each once leaves the database
 * and the answer as the cost of a request.
 */
import type { Dialect } from '../storage/types.js';
import type { PlanHints } from './index.js';
import type { QueryLimits } from './model.js';
import { derivedFrom } from '../util/derived.js';
import { isParam } from './params.js';

/**
 * The identity of a dictionary as the compiler sees it, told apart where JSON would merge values: a Date and
 * its ISO text compile differently, and so do a Param and any literal, or an infinite number and null. Each
 * kind of value is written with its own first character (strings and keys quoted as JSON), so two different
 * dictionaries never give one key.
 */
export function planKey(dict: unknown, dialect: Dialect, limits: QueryLimits, hints?: PlanHints): string {
  const settings = settingsOf(dialect, limits, hints);
  const whole = () => `${settings}|${identity(dict)}`;
  // A frozen dictionary's key is one kept string: the plan lookup then hashes it once, not at every request.
  return typeof dict === 'object' && dict !== null && unchanging(dict)
    ? derivedFrom(dict, settings, whole)
    : whole();
}

/**
 * The key of a dictionary that is JSON (JSON.parse's output: texts, finite numbers, booleans, null, lists and
 * plain objects), or a lifted body's shape (src/query/lifted-values.ts): its JSON text, which tells such
 * dictionaries apart as `identity` does, written by V8 at a fifth of the cost (a 20-row join's body: 9 µs and
 * 5 kB of garbage less per never-asked request). `J` keeps it apart from every key planKey writes.
 */
export function jsonPlanKey(dict: unknown, dialect: Dialect, limits: QueryLimits, hints?: PlanHints): string {
  return `${settingsOf(dialect, limits, hints)}|J${JSON.stringify(dict)}`;
}

/** What a key holds beside the dictionary: the dialect, the hints and the bounds the plan was validated within. */
function settingsOf(dialect: Dialect, limits: QueryLimits, hints?: PlanHints): string {
  const bounds =
    `${limits.maxVertices},${limits.maxInList},${limits.maxProjections},` +
    `${limits.maxFilterDepth},${limits.maxValueDepth},${limits.maxPatternLength}`;
  return `${dialect}|${hints?.orderedScan ? 'ordered' : ''}|${hints?.nodeTypeOrder ?? ''}|${bounds}`;
}

/**
 * Identities of deeply frozen objects and arrays (parts of queries shared by many requests: a query string's
 * filters, a collection's projections): they cannot change, so each is written once.
 */
const frozenIdentities = new WeakMap<object, string>();

/** Whether `value` cannot change: a primitive, a Param, or an object whose identity was kept. */
const unchanging = (value: unknown) =>
  typeof value !== 'object' || value === null || isParam(value) || frozenIdentities.has(value);

/** Written with loops and concatenation: this runs for every query, and is twice as fast as map and join. */
function identity(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `#${value}`;
  if (typeof value !== 'object' || value === null) return String(value);
  if (isParam(value)) return `$${value.name}`;
  if (value instanceof Date) return `@${value.getTime()}`;
  const kept = frozenIdentities.get(value);
  if (kept !== undefined) return kept;
  let out: string;
  let frozen = Object.isFrozen(value);
  if (Array.isArray(value)) {
    out = '[';
    for (const item of value) {
      out += identity(item) + ',';
      frozen &&= unchanging(item);
    }
    out += ']';
  } else {
    out = '{';
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      out += JSON.stringify(key) + ':' + identity(item) + ',';
      frozen &&= unchanging(item);
    }
    out += '}';
  }
  if (frozen) frozenIdentities.set(value, out);
  return out;
}
