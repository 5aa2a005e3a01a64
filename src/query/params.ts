/**
 * Bound parameters of kept plans. Requests that differ only in an id (a node's UUID, a pk) share one
 * validated and compiled plan: the caller writes the id as a Param and gives its value when the plan runs.
 * Only code makes a Param (JSON cannot), and one may stand only where a plain column is compared with a
 * single value, so the SQL of a plan never depends on the value bound.
 */
export class Param {
  constructor(readonly name: string) {
    Object.freeze(this);
  }
}

export type ParamValues = Readonly<Record<string, unknown>>;

export function isParam(value: unknown): value is Param {
  return value instanceof Param;
}

/** The statement's parameters with every Param replaced by its value, converted for the driver. */
export function bindParams(
  params: unknown[],
  values: ParamValues | undefined,
  convert: (value: unknown) => unknown,
): unknown[] {
  if (!params.some(isParam)) return params;
  return params.map((p) => {
    if (!isParam(p)) return p;
    if (values === undefined || !(p.name in values))
      throw new Error(`no value given for parameter ${p.name}`);
    return convert(values[p.name]);
  });
}
