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
