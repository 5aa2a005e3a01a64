/**
 * Deep-frozen values: shared by every request that uses them (parsed query strings, collection specs, query
 * shapes), and safe to know by their identity, as the query engine's plan keys do.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
