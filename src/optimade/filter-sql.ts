/**
 * An OPTIMADE filter tree -> a WHERE clause on the side table (side-table.ts), alias `s`. Every comparison
 * reads an indexed column or the elements table; values are parameters, never spliced into the SQL. Optional
 * features Quarry does not serve are a 501 that names them; a type the property does not have is a 501 too
 * (the specification: type conversion is not implemented); a property Quarry does not know is a 400, unless it
 * carries another provider's prefix, which makes it unknown (null) with a warning.
 */
import type { ComparisonOp, Constant, FilterNode, ListEntry, PropertyPath, Value } from './filter-ast.js';
import { notImplemented, OptimadeError } from './errors.js';
import { PREFIX, STRUCTURE_PROPERTIES, UNSERVED_PROPERTIES, type PropertyInfo } from './properties.js';
import { filterTimestamp } from './timestamps.js';
import { elementMask } from './element-masks.js';
import { COUNTED_COLUMNS } from './side-rows.js';

export interface CompiledFilter {
  where: string;
  params: unknown[];
  /** Properties of other providers treated as unknown, for the answer's warnings. */
  foreign: string[];
  /**
   * For a filter of comparisons of one counted column with numbers (`nsites<10`, `nsites>=3 AND nsites<10`):
   * the count of its matches from the side table's counts per value, a few rows instead of an index range.
   */
  counted?: { sql: string; params: unknown[] };
}

const FLIPPED: Record<ComparisonOp, ComparisonOp> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

/**
 * A property the filter names, as found: Quarry's, or one that is always unknown: another provider's, or one the
 * specification defines that Quarry does not serve (`unserved`: a comparison on it is a 501).
 */
type Resolved =
  | { name: string; info: PropertyInfo & { column: string } }
  | { name: string; foreign: true; unserved?: boolean };

/** The SQL a property's column is read with: a column of the side table, or a constant. */
const columnOf = (info: PropertyInfo & { column: string }) =>
  info.constant === true ? info.column : `s.${info.column}`;

class Compiler {
  readonly params: unknown[] = [];
  readonly foreign = new Set<string>();

  /** `idSql`: the SQL of `id` where it is not the node's UUID (the database over every source, all-sources.ts). */
  constructor(private readonly idSql?: string) {}

  node(n: FilterNode): string {
    switch (n.type) {
      case 'or':
        return `(${n.items.map((i) => this.node(i)).join(' OR ')})`;
      case 'and': {
        // Bound in the order they are written: the added condition first.
        const exact = this.exactElements(n.items);
        const items = n.items.map((i) => this.node(i));
        return `(${exact === undefined ? '' : `${exact} AND `}${items.join(' AND ')})`;
      }
      case 'not':
        return `(NOT ${this.node(n.expr)})`;
      case 'bare':
        return this.known(n.property, true);
      case 'known':
        return this.known(n.property, n.known);
      case 'compare':
        return this.compare(n.left, n.op, n.right);
      case 'fuzzy': {
        const p = this.resolve(n.property);
        if ('foreign' in p) return this.unknown(p, `${n.op} on ${p.name}`);
        const text = this.stringOperand(n.value, `${n.op} on ${p.name}`);
        if (p.info.type !== 'string') throw typeMismatch(p.name, p.info, 'a substring comparison');
        return this.fuzzy(columnOf(p.info), n.op, text);
      }
      case 'has':
        return this.has(n.property, n.mode, n.values);
      case 'length':
        return this.length(n.property, n.op, n.value);
      case 'zip':
        throw notImplemented(
          `Correlated list queries (${n.properties.map((p) => p.join('.')).join(':')} HAS ...)`,
        );
    }
  }

  /**
   * `elements HAS ALL a,b AND nelements=2` says the element set exactly: then the masks are equal to the query's,
   * which the (nelements, mask_lo, mask_hi) index finds by seeking instead of testing every structure with two
   * elements. The condition is added beside the others, which stay as they are.
   */
  exactElements(items: FilterNode[]): string | undefined {
    const count = items.find(
      (i) =>
        i.type === 'compare' &&
        i.op === '=' &&
        i.left.kind === 'property' &&
        i.left.path.join('.') === 'nelements' &&
        i.right.kind === 'number',
    ) as { right: { value: number } } | undefined;
    if (count === undefined) return undefined;
    for (const item of items) {
      if (item.type !== 'has' || item.property.join('.') !== 'elements') continue;
      if (item.mode !== 'all' && item.mode !== 'one') continue;
      if (!item.values.every((e) => e.op === '=' && e.value.kind === 'string')) continue;
      const symbols = new Set(item.values.map((e) => (e.value as { value: string }).value));
      const mask = elementMask(symbols);
      if (mask.unknown || symbols.size !== count.right.value) continue;
      return `(s.nelements = ${this.bind(symbols.size)} AND s.mask_lo = CAST(${this.bind(String(mask.lo))} AS INTEGER) AND s.mask_hi = CAST(${this.bind(String(mask.hi))} AS INTEGER) AND s.mask_unknown = 0)`;
    }
    return undefined;
  }

  bind(value: unknown): string {
    this.params.push(value);
    return '?';
  }

  resolve(path: PropertyPath, forKnown = false): Resolved {
    const name = path.join('.');
    if (path.length > 1) {
      if (isForeign(path[0]!)) return this.unknownForeign(name);
      throw notImplemented(`Nested property names (${name})`);
    }
    const info = Object.hasOwn(STRUCTURE_PROPERTIES, name) ? STRUCTURE_PROPERTIES[name] : undefined;
    if (info === undefined) {
      if (UNSERVED_PROPERTIES.has(name)) return { name, foreign: true, unserved: true };
      if (isForeign(name)) return this.unknownForeign(name);
      throw new OptimadeError(
        400,
        'Bad Request',
        `unknown property ${name} in the filter; /info/structures lists the properties of structures`,
        'filter',
      );
    }
    // IS KNOWN needs no column of its own: a property that is never null is always known, and a nullable one
    // without a column is known where the column it comes with (knownWith) is.
    if (forKnown && info.column === undefined)
      return {
        name,
        info: { ...info, column: info.knownWith ?? "'known'", constant: info.knownWith === undefined },
      };
    if (info.column === undefined) throw notImplemented(`Filtering on ${name}`);
    if (name === 'id' && this.idSql !== undefined)
      return { name, info: { ...info, column: this.idSql, constant: true } };
    return { name, info: info as PropertyInfo & { column: string } };
  }

  unknownForeign(name: string): Resolved {
    this.foreign.add(name);
    return { name, foreign: true };
  }

  /**
   * A comparison on a property that is always unknown: another provider's never matches (the specification:
   * evaluated as null); one the specification defines and Quarry does not serve is a 501.
   */
  unknown(p: Resolved, what: string): string {
    if ('unserved' in p && p.unserved === true)
      throw notImplemented(`Filtering on ${p.name} (${what}; it is always null here)`);
    return 'NULL';
  }

  known(path: PropertyPath, known: boolean): string {
    const p = this.resolve(path, true);
    if ('foreign' in p) return known ? '0' : '1';
    if (!p.info.nullable) return known ? '1' : '0';
    return `(${columnOf(p.info)} IS ${known ? 'NOT ' : ''}NULL)`;
  }

  compare(left: Value, op: ComparisonOp, right: Value): string {
    if (left.kind === 'property' && right.kind === 'property')
      throw notImplemented('Comparing two properties');
    if (left.kind !== 'property' && right.kind !== 'property') return this.constants(left, op, right);
    const [path, value, actual] =
      left.kind === 'property'
        ? [left.path, right as Constant, op]
        : [(right as { path: PropertyPath }).path, left, FLIPPED[op]];
    const p = this.resolve(path);
    if ('foreign' in p) return this.unknown(p, `the comparison ${actual}`);
    if (p.info.type === 'list') throw typeMismatch(p.name, p.info, `the comparison ${actual}`);
    const column = columnOf(p.info);
    if (p.info.type === 'timestamp' && value.kind === 'string')
      return this.instant(column, actual, value.value, p.name);
    return `(${column} ${sqlOp(actual)} ${this.bind(this.operand(p, value, actual))})`;
  }

  /**
   * A timestamp column (whole microseconds) compared with an instant that may lie between two of them (more than
   * six fractional digits): exactly, with the same null rule as every comparison (a null column gives NULL).
   */
  instant(column: string, op: ComparisonOp, text: string, name: string): string {
    const { micros, exact } = filterTimestamp(text, name);
    if (exact) return `(${column} ${sqlOp(op)} ${this.bind(micros)})`;
    // micros < instant < micros + 1.
    if (op === '<' || op === '<=') return `(${column} <= ${this.bind(micros)})`;
    if (op === '>' || op === '>=') return `(${column} > ${this.bind(micros)})`;
    return op === '=' ? `(${column} <> ${column})` : `(${column} = ${column})`;
  }

  /** A constant compared with a constant: numbers are compared here; strings are a 501 by the specification. */
  constants(left: Constant, op: ComparisonOp, right: Constant): string {
    if (left.kind !== 'number' || right.kind !== 'number')
      throw notImplemented('Comparing two constants other than numbers');
    const [a, b] = [left.value, right.value];
    const result = { '=': a === b, '!=': a !== b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[op];
    return result ? '1' : '0';
  }

  /** The SQL value a property is compared with, checked against its type. */
  operand(p: { name: string; info: PropertyInfo }, value: Constant, op: string, type = p.info.type): unknown {
    if (value.kind === 'boolean') {
      if (type !== 'boolean') throw typeMismatch(p.name, p.info, 'TRUE or FALSE');
      return value.value ? 1 : 0;
    }
    if (type === 'timestamp') {
      if (value.kind !== 'string') throw typeMismatch(p.name, p.info, 'a number');
      return filterTimestamp(value.value, p.name).micros;
    }
    if (type === 'string') {
      if (value.kind !== 'string') throw typeMismatch(p.name, p.info, 'a number');
      return value.value;
    }
    if (value.kind !== 'number') throw typeMismatch(p.name, p.info, `a string (with ${op})`);
    return finite(value);
  }

  stringOperand(value: Value, what: string): string {
    if (value.kind === 'property') throw notImplemented(`A property after ${what.split(' ')[0]}`);
    if (value.kind !== 'string')
      throw new OptimadeError(400, 'Bad Request', `${what} needs a string`, 'filter');
    return value.value;
  }

  /**
   * A substring test on the SQL value `c`. Each form is NULL where `c` is, as every comparison is, so that `NOT`
   * treats a null the same whatever the operator (`NOT x STARTS ""` matches no null, as `NOT x = "a"` does not).
   */
  fuzzy(c: string, op: 'CONTAINS' | 'STARTS' | 'ENDS', text: string): string {
    if (op === 'CONTAINS') return `(instr(${c}, ${this.bind(text)}) > 0)`;
    // SQLite's substr(c, -0) is the whole string, so ENDS "" is said with the length.
    if (op === 'ENDS')
      return `(substr(${c}, length(${c}) - ${this.bind(text.length)} + 1) = ${this.bind(text)})`;
    // The lower bound lets the column's index find the range; the substr keeps the answer exact.
    return `(${c} >= ${this.bind(text)} AND substr(${c}, 1, ${this.bind(text.length)}) = ${this.bind(text)})`;
  }

  has(path: PropertyPath, mode: 'one' | 'all' | 'any' | 'only', entries: ListEntry[]): string {
    const p = this.resolve(path);
    if ('foreign' in p) return this.unknown(p, 'HAS');
    if (p.info.type !== 'list') throw typeMismatch(p.name, p.info, 'HAS (it is not a list)');
    const column = p.info.column;
    if (column === 'elements') {
      const masked = this.hasElement(mode, entries);
      if (masked !== undefined) return masked;
    }
    const item = { name: p.name, info: { ...p.info, type: p.info.itemType! } };
    const tests = entries.map((e) => this.itemTest(item, e));
    const exists = (t: string) => `EXISTS (SELECT 1 FROM json_each(s.${column}) WHERE ${t})`;
    if (mode === 'one' || mode === 'any') return exists(tests.join(' OR '));
    if (mode === 'all') return `(${tests.map(exists).join(' AND ')})`;
    return `(NOT EXISTS (SELECT 1 FROM json_each(s.${column}) WHERE NOT (${tests.join(' OR ')})))`;
  }

  /**
   * HAS on `elements` with plain symbols: a comparison of the element masks (element-masks.ts), read from an
   * index. Entries with operators, or symbols outside the periodic table, go through json_each.
   */
  hasElement(mode: 'one' | 'all' | 'any' | 'only', entries: ListEntry[]): string | undefined {
    if (!entries.every((e) => e.op === '=' && e.value.kind === 'string')) return undefined;
    const mask = elementMask(entries.map((e) => (e.value as { value: string }).value));
    if (mask.unknown) return undefined;
    // Each use of a mask is a parameter of its own (positional parameters are bound once each).
    const lo = () => `CAST(${this.bind(String(mask.lo))} AS INTEGER)`;
    const hi = () => `CAST(${this.bind(String(mask.hi))} AS INTEGER)`;
    if (mode === 'only')
      return `((s.mask_lo & ~${lo()}) = 0 AND (s.mask_hi & ~${hi()}) = 0 AND s.mask_unknown = 0)`;
    if (mode === 'any') return `((s.mask_lo & ${lo()}) <> 0 OR (s.mask_hi & ${hi()}) <> 0)`;
    return `((s.mask_lo & ${lo()}) = ${lo()} AND (s.mask_hi & ${hi()}) = ${hi()})`;
  }

  /** One entry of a list after HAS, as a test on `value` (a json_each row or an element). */
  itemTest(item: { name: string; info: PropertyInfo }, entry: ListEntry): string {
    if (entry.value.kind === 'property') throw notImplemented('A property in the values after HAS');
    if (entry.op === 'CONTAINS' || entry.op === 'STARTS' || entry.op === 'ENDS') {
      if (item.info.type !== 'string') throw typeMismatch(item.name, item.info, entry.op);
      const text = this.stringOperand(entry.value, entry.op);
      return this.fuzzy('value', entry.op, text);
    }
    return `value ${sqlOp(entry.op)} ${this.bind(this.operand(item, entry.value, entry.op))}`;
  }

  length(path: PropertyPath, op: ComparisonOp, value: Value): string {
    const p = this.resolve(path);
    if ('foreign' in p) return this.unknown(p, 'LENGTH');
    if (p.info.type !== 'list') throw typeMismatch(p.name, p.info, 'LENGTH (it is not a list)');
    if (value.kind === 'property') throw notImplemented('A property after LENGTH');
    if (value.kind !== 'number' || !Number.isInteger(value.value))
      throw notImplemented(`LENGTH compared with anything but an integer (${p.name})`);
    const count = p.info.column === 'elements' ? 's.nelements' : `json_array_length(s.${p.info.column})`;
    return `(${count} ${sqlOp(op)} ${this.bind(value.value)})`;
  }
}

const sqlOp = (op: ComparisonOp) => (op === '!=' ? '<>' : op);

function finite(value: { text: string; value: number }): number {
  if (!Number.isFinite(value.value))
    throw new OptimadeError(
      501,
      'Not Implemented',
      `the number ${value.text} is outside the range of 64-bit floating point numbers (about ±1.8e308), the range this server compares`,
      'filter',
    );
  return value.value;
}

/** A prefixed name (`_abc_...`) of a provider other than Quarry. */
function isForeign(name: string): boolean {
  const m = /^_([a-z0-9]+)_/.exec(name);
  return m !== null && m[1] !== PREFIX;
}

function typeMismatch(name: string, info: PropertyInfo, what: string): OptimadeError {
  const type = info.type === 'list' ? `a list of ${info.itemType}` : `of type ${info.type}`;
  return new OptimadeError(
    501,
    'Not Implemented',
    `${name} is ${type}, so it cannot be compared with ${what}: OPTIMADE implements no conversion between types`,
    'filter',
  );
}

export function compileFilter(tree: FilterNode, idSql?: string): CompiledFilter {
  const compiler = new Compiler(idSql);
  const where = compiler.node(tree);
  return { where, params: compiler.params, foreign: [...compiler.foreign], counted: countedFilter(tree) };
}

/** The count of a filter from side_counts, where every term compares the same counted column with a number. */
function countedFilter(tree: FilterNode): CompiledFilter['counted'] {
  const terms = tree.type === 'and' ? tree.items : [tree];
  let column: string | undefined;
  const tests: string[] = [];
  const params: unknown[] = [];
  for (const term of terms) {
    if (term.type !== 'compare') return undefined;
    const [path, value, op] =
      term.left.kind === 'property'
        ? [term.left.path, term.right, term.op]
        : term.right.kind === 'property'
          ? [term.right.path, term.left, FLIPPED[term.op]]
          : [undefined, term.right, term.op];
    if (path === undefined || path.length !== 1 || value.kind !== 'number') return undefined;
    const found = Object.hasOwn(STRUCTURE_PROPERTIES, path[0]!)
      ? STRUCTURE_PROPERTIES[path[0]!]!.column
      : undefined;
    if (found === undefined || !COUNTED_COLUMNS.includes(found) || (column ?? found) !== found)
      return undefined;
    column = found;
    tests.push(`value ${sqlOp(op)} ?`);
    params.push(value.value);
  }
  if (column === undefined) return undefined;
  return {
    sql: `SELECT coalesce(sum(n), 0) FROM side_counts WHERE property = ? AND ${tests.join(' AND ')}`,
    params: [column, ...params],
  };
}
