/** Shared pieces of dictionary validation: every problem becomes a QueryValidationError naming its place. */
import { QueryValidationError } from './model.js';

export function fail(where: string, message: string): never {
  throw new QueryValidationError(`${where}: ${message}`);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

export function parseBool(value: unknown, where: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') fail(where, 'must be true or false');
  return value as boolean;
}

export const hasNul = (text: string): boolean => text.includes('\u0000');

/**
 * A filter value's nesting and characters, walked without recursion (a value nested 100,000 levels deep must
 * be refused, not overflow the stack): at most `maxDepth` levels of arrays and objects, and no NUL character
 * in a string or key (PostgreSQL can store neither in text nor in jsonb).
 */
export function checkValueShape(value: unknown, where: string, maxDepth: number): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item === 'string') {
      if (hasNul(item)) fail(where, 'values cannot hold NUL characters (\\u0000)');
      continue;
    }
    if (typeof item !== 'object' || item === null || item instanceof Date) continue;
    if (depth >= maxDepth) fail(where, `the value nests more than ${maxDepth} levels of lists and objects`);
    if (Array.isArray(item)) {
      for (const element of item) stack.push([element, depth + 1]);
      continue;
    }
    for (const [key, element] of Object.entries(item)) {
      if (hasNul(key)) fail(where, 'keys cannot hold NUL characters (\\u0000)');
      stack.push([element, depth + 1]);
    }
  }
}

/**
 * Levels of arrays and objects in a JSON document, counted without recursion and given up past `limit`
 * (returns limit + 1 then): checked before anything recursive walks a request body.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return limit + 1;
    for (const element of Array.isArray(item) ? item : Object.values(item)) stack.push([element, depth + 1]);
  }
  return deepest;
}
