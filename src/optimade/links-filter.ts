/**
 * A filter on `links` entries (the index's child databases, a source's root link), evaluated on the few
 * entries in memory: `link_type="child"` and the like. Links have string properties only (`homepage` may be
 * null); comparisons, substring tests, IS KNOWN, AND, OR and NOT are served, with the null rule of every
 * OPTIMADE comparison (a comparison with null does not match, nor does its NOT). Anything else is a 501.
 */
import { notImplemented, OptimadeError } from './errors.js';
import type { FilterNode, Value } from './filter-ast.js';

export const LINK_PROPERTIES = [
  'id',
  'type',
  'name',
  'description',
  'base_url',
  'homepage',
  'link_type',
  'aggregate',
  'no_aggregate_reason',
];

type Link = Record<string, unknown>;
/** true, false, or null (a comparison with null). */
type Truth = boolean | null;

function valueOf(link: Link, path: string[]): string | null {
  const name = path.join('.');
  if (!LINK_PROPERTIES.includes(name)) {
    if (/^_[a-z0-9]+_/.test(name)) return null;
    throw new OptimadeError(
      400,
      'Bad Request',
      `unknown property ${name} in the filter; links have ${LINK_PROPERTIES.join(', ')}`,
      'filter',
    );
  }
  const value =
    name === 'id' || name === 'type' ? link[name] : (link.attributes as Record<string, unknown>)[name];
  return value === undefined || value === null ? null : String(value);
}

function stringOf(value: Value, what: string): string {
  if (value.kind !== 'string') throw notImplemented(`${what} with anything but a string on links`);
  return value.value;
}

function test(link: Link, n: FilterNode): Truth {
  switch (n.type) {
    case 'or': {
      const all = n.items.map((i) => test(link, i));
      return all.includes(true) ? true : all.includes(null) ? null : false;
    }
    case 'and': {
      const all = n.items.map((i) => test(link, i));
      return all.includes(false) ? false : all.includes(null) ? null : true;
    }
    case 'not': {
      const inner = test(link, n.expr);
      return inner === null ? null : !inner;
    }
    case 'bare':
      return valueOf(link, n.property) !== null;
    case 'known':
      return (valueOf(link, n.property) !== null) === n.known;
    case 'compare': {
      if (n.left.kind !== 'property' || n.right.kind === 'property')
        throw notImplemented('On links, comparisons other than a property with a string');
      const actual = valueOf(link, n.left.path);
      const expected = stringOf(n.right, 'A comparison');
      if (actual === null) return null;
      const order = actual < expected ? -1 : actual > expected ? 1 : 0;
      return {
        '=': order === 0,
        '!=': order !== 0,
        '<': order < 0,
        '<=': order <= 0,
        '>': order > 0,
        '>=': order >= 0,
      }[n.op];
    }
    case 'fuzzy': {
      const actual = valueOf(link, n.property);
      const text = stringOf(n.value, n.op);
      if (actual === null) return null;
      if (n.op === 'CONTAINS') return actual.includes(text);
      return n.op === 'STARTS' ? actual.startsWith(text) : actual.endsWith(text);
    }
    default:
      throw notImplemented(`${n.type.toUpperCase()} on links (they have no list properties)`);
  }
}

/** The links a filter keeps, in their order. */
export function filterLinks<T extends Link>(links: T[], tree: FilterNode): T[] {
  return links.filter((link) => test(link, tree) === true);
}
