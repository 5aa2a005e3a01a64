/**
 * Source text for functions built at run time from names known only then (a query's projections, a record's
 * keys): one object literal per row instead of a loop of keyed stores, which V8 builds several times faster.
 * Names only ever enter the source as JSON string literals, so no name can change what the code does.
 */

/** `key` as a property name of an object literal: quoted, and computed for `__proto__`, which would set the
 * prototype instead of an own property. */
export function propertyName(key: string): string {
  const quoted = JSON.stringify(key);
  return key === '__proto__' ? `[${quoted}]` : quoted;
}

/** A function of the named parameters running `body`; `body` is code written by this program. */
export function compiledFunction<F>(parameters: string[], body: string): F {
  return new Function(...parameters, `'use strict';\n${body}`) as F;
}
