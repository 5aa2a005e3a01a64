/**
 * Values derived from a long-lived object (a frozen query shape, a kept query) under a short name, kept as
 * long as the object lives. Requests of one shape then reuse one derived object, which the query engine knows
 * by its identity, instead of assembling an equal one each time.
 */
const derived = new WeakMap<object, Map<string, unknown>>();

/**
 * `make()` once per owner and name. Past `most` names for one owner (say the windows of a listing paged
 * through to its end) the value is made afresh each time: correct, only not shared. The bound matters: a
 * kept query costs its plan key (a kilobyte or two of text), and owners live as long as the query strings
 * kept by the HTTP layer (a thousand), so at most 32 windows of each stay.
 */
export function derivedFrom<T>(owner: object, name: string, make: () => T, most = 32): T {
  let byName = derived.get(owner);
  if (byName === undefined) derived.set(owner, (byName = new Map()));
  if (byName.has(name)) return byName.get(name) as T;
  const value = make();
  if (byName.size < most) byName.set(name, value);
  return value;
}
