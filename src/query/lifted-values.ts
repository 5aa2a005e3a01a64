/**
 * Posted dictionaries that differ only in the pks they compare share one plan: a script paging by
 * `id > last`, or asking one calculation after another, sends a body nobody sent before each time, and its
 * parse, validation and compilation were most of what such a query cost beyond the database (a 20-row join
 * never asked: 480-590 µs of CPU, against 320-350 µs for the same body asked again with its plan kept).
 *
 * A whole number compared with a tag's `id` (`==`, `<`, `<=`, `>`, `>=`, or the value alone) becomes a
 * Param: the compiler writes the same SQL for it as for the number (every entity's `id` is a whole-number
 * column, and a safe integer is within its range), and the number is bound when the plan runs. Anything
 * else stays as it is.
 */
import { Param, type ParamValues } from './params.js';

const LIFTED_OPERATORS = new Set(['==', '=', '<', '<=', '>', '>=']);

/** The same Param objects for every body, so that their names are all a plan's key holds of them. */
const params: Param[] = [];
const paramAt = (i: number) => (params[i] ??= new Param(`id${i}`));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const liftable = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

export interface Lifted {
  dict: Record<string, unknown>;
  values: ParamValues;
  /**
   * `dict` with 0 where it has a Param: for a dictionary that is JSON (a posted body), its JSON text is the same
   * for every body whose lifted form is the same, and for no other (a 0 in such a place is lifted too), so it
   * names the plan (src/query/plan-cache.ts, jsonPlanKey).
   */
  shape: Record<string, unknown>;
}

/**
 * `dict` with the whole numbers its tags' `id` filters compare written as Params, and their values; undefined
 * when it has none (and for frozen dictionaries: the REST layer's own, which bind their pks already).
 */
export function liftedValues(dict: Record<string, unknown>): Lifted | undefined {
  const filters = dict.filters;
  if (Object.isFrozen(dict) || !isObject(filters)) return undefined;
  let lifted: Record<string, unknown> | undefined;
  let shaped: Record<string, unknown> | undefined;
  const values: Record<string, number> = {};
  let n = 0;
  for (const tag of Object.keys(filters)) {
    const spec = filters[tag];
    if (!isObject(spec)) continue;
    const id = spec.id;
    // As `==` when the value stands alone: a Param alone would read as an object of conditions.
    let op = '==';
    if (liftable(id)) values[paramAt(n).name] = id;
    else if (isObject(id)) {
      const ops = Object.keys(id);
      if (ops.length !== 1 || !LIFTED_OPERATORS.has(ops[0]!) || !liftable(id[ops[0]!])) continue;
      op = ops[0]!;
      values[paramAt(n).name] = id[op] as number;
    } else continue;
    lifted ??= { ...filters };
    shaped ??= { ...filters };
    lifted[tag] = { ...spec, id: { [op]: paramAt(n++) } };
    shaped[tag] = { ...spec, id: { [op]: 0 } };
  }
  return lifted === undefined
    ? undefined
    : { dict: { ...dict, filters: lifted }, values, shape: { ...dict, filters: shaped } };
}
