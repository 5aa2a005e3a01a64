/** Filters -> SQL conditions: plain columns, and paths into JSON columns with PostgreSQL's JSONB meaning. */
import { INT_COLUMN_RANGE, QueryValidationError, type FieldRef, type FilterNode } from './model.js';
import { isParam } from './params.js';
import type { Expr } from './sql-ast.js';
import { isNullable, SCHEMA, type ColumnType, type EntityKind } from './schema.js';
import { numberOf } from './validate.js';

/** Where a tag's columns live in the SQL: its alias, and which entity (or the ancestry walk) it is. */
export interface TagInfo {
  alias: string;
  kind: EntityKind | 'walk';
}

export const WALK_COLUMNS: Record<string, ColumnType> = {
  ancestor_id: 'int',
  descendant_id: 'int',
  depth: 'int',
};

export function columnsOf(kind: EntityKind | 'walk'): Record<string, ColumnType> {
  return kind === 'walk' ? WALK_COLUMNS : SCHEMA[kind].columns;
}

export function col(alias: string, column: string): Expr {
  return { t: 'col', alias, column };
}

export const eq = (left: Expr, right: Expr): Expr => ({ t: 'cmp', op: '=', left, right });

export function typeOf(field: FieldRef, info: TagInfo): ColumnType {
  return columnsOf(info.kind)[field.column] as ColumnType;
}

const NUMERIC = ['integer', 'real'];
const typeIn = (field: FieldRef, info: TagInfo, types: string[]): Expr => ({
  t: 'in',
  item: { t: 'json', alias: info.alias, column: field.column, path: field.path, mode: 'type' },
  values: types.map((value) => ({ t: 'param', value })),
});

/** The conjunction of conditions, without those known to hold; undefined when nothing is left. */
export function andOf(conditions: Expr[]): Expr | undefined {
  const rest = conditions.filter((e) => !(e.t === 'const' && e.value === 'TRUE'));
  if (rest.length === 0) return undefined;
  return rest.length === 1 ? rest[0] : { t: 'and', items: rest };
}

export function filterExpr(node: FilterNode, info: TagInfo): Expr {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // Conditions known to hold drop out of an AND, and make an OR hold.
      const items = node.items.map((i) => filterExpr(i, info));
      const holds = (e: Expr) => e.t === 'const' && e.value === 'TRUE';
      if (node.kind === 'or') {
        if (items.some(holds)) return { t: 'const', value: 'TRUE' };
        return items.length === 0 ? { t: 'const', value: 'FALSE' } : { t: 'or', items };
      }
      return andOf(items) ?? { t: 'const', value: 'TRUE' };
    }
    case 'not':
      return { t: 'not', item: filterExpr(node.item, info) };
    case 'cmp':
      if (isParam(node.value)) return paramCondition(node, info);
      return typeOf(node.field, info) === 'json' ? jsonCondition(node, info) : columnCondition(node, info);
  }
}

/**
 * A plain column compared with a bound parameter. The caller binds a value of the column's own kind (a
 * canonical UUID, an integer pk), so the comparison is written as is: no value-dependent rewriting.
 */
function paramCondition(node: Extract<FilterNode, { kind: 'cmp' }>, info: TagInfo): Expr {
  const { field, op, value } = node;
  if (typeOf(field, info) === 'json' || field.path.length > 0) {
    throw new QueryValidationError(`${field.column}: a bound parameter compares plain columns only`);
  }
  const right: Expr = { t: 'param', value };
  const item = col(info.alias, field.column);
  if (op === '==') return eq(item, right);
  if (op === '<' || op === '<=' || op === '>' || op === '>=') return { t: 'cmp', op, left: item, right };
  throw new QueryValidationError(`${field.column}: "${op}" does not take a bound parameter`);
}

function columnCondition(node: Extract<FilterNode, { kind: 'cmp' }>, info: TagInfo): Expr {
  const column = node.field.column;
  const item = col(info.alias, column);
  const type = typeOf(node.field, info);
  const nullable = info.kind === 'walk' || isNullable(info.kind, column);
  const everyRow: Expr = nullable ? { t: 'not', item: { t: 'isnull', item } } : { t: 'const', value: 'TRUE' };
  const param = (value: unknown): Expr => ({ t: 'param', value: columnValue(value, type, column) });
  switch (node.op) {
    case '==': {
      if (node.value === null) return { t: 'isnull', item };
      const value = equalValue(node.value, type, column);
      return value === NO_MATCH ? { t: 'const', value: 'FALSE' } : eq(item, param(value));
    }
    case 'in': {
      const values = (node.value as unknown[])
        .map((v) => equalValue(v, type, column))
        .filter((v) => v !== NO_MATCH);
      return values.length === 0
        ? { t: 'const', value: 'FALSE' }
        : { t: 'in', item, values: values.map(param) };
    }
    case 'like':
    case 'ilike':
      // `LIKE '%'` matches every non-NULL value (it is the type filter of "all nodes"); said so, the planner
      // counts from an index instead of testing the pattern on every row.
      if (node.value === '%') return everyRow;
      return {
        t: 'like',
        // PostgreSQL has no LIKE for numbers and dates: they are matched as the text SQLite matches.
        item: type === 'text' ? item : { t: 'cast', item, to: 'text' },
        pattern: { t: 'param', value: node.value },
        caseInsensitive: node.op === 'ilike',
      };
    case '<':
    case '<=':
    case '>':
    case '>=':
      if (type === 'int') return intBound(item, node.op, node.value, column, everyRow);
      // A UUID compared with a string that is no UUID: PostgreSQL's uuid type would refuse it; text orders alike.
      if (column === 'uuid') {
        return { t: 'cmp', op: node.op, left: { t: 'cast', item, to: 'text' }, right: param(node.value) };
      }
      return { t: 'cmp', op: node.op, left: item, right: param(node.value) };
    default:
      throw new QueryValidationError(`${column}: "${node.op}" applies to JSON columns and paths only`);
  }
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const NO_MATCH = Symbol('no match');

/**
 * The value an equality compares with, or NO_MATCH when the column cannot hold it: `id == "abc"`, a fraction,
 * an id past the range of AiiDA's integer columns or a malformed UUID match no row (as on SQLite, where the
 * reference answered an empty list) instead of being refused by PostgreSQL's typed columns.
 */
function equalValue(value: unknown, type: ColumnType, column: string): unknown {
  if (type === 'int') {
    const n = numberOf(value);
    const fits =
      n !== undefined && Number.isInteger(n) && n >= INT_COLUMN_RANGE.min && n <= INT_COLUMN_RANGE.max;
    return fits ? n : NO_MATCH;
  }
  if (column === 'uuid') return typeof value === 'string' && UUID.test(value) ? value : NO_MATCH;
  return value;
}

/**
 * A whole-number column against any number: a fraction is rounded to the whole bound that selects the same
 * rows (`id > 1.5` is `id > 1`), and a bound past the column's range selects all rows or none, so that only
 * numbers the column's type holds reach the database.
 */
function intBound(
  item: Expr,
  op: '<' | '<=' | '>' | '>=',
  value: unknown,
  column: string,
  /** The condition every row with a value in the column meets. */
  all: Expr,
): Expr {
  const n = numberOf(value);
  if (n === undefined) {
    throw new QueryValidationError(
      `${column}: "${op}" compares a whole-number column with numbers, not ${describe(value)}`,
    );
  }
  const bound = op === '<' || op === '>=' ? Math.ceil(n) : Math.floor(n);
  const below = op === '<' || op === '<=';
  const none: Expr = { t: 'const', value: 'FALSE' };
  if (bound > INT_COLUMN_RANGE.max) return below ? all : none;
  if (bound < INT_COLUMN_RANGE.min) return below ? none : all;
  return { t: 'cmp', op, left: item, right: { t: 'param', value: bound } };
}

const describe = (value: unknown) => (value instanceof Date ? value.toISOString() : JSON.stringify(value));

/** Datetime columns take Date objects or ISO 8601 strings; other columns take JSON scalars. */
function columnValue(value: unknown, type: ColumnType, column: string): unknown {
  if (type === 'datetime' && !(value instanceof Date)) {
    if (typeof value !== 'string') {
      throw new QueryValidationError(
        `${column}: compare with a date-time such as "2020-01-31T12:00:00+00:00", not ${describe(value)}`,
      );
    }
    const parsed = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(parsed.getTime()))
      throw new QueryValidationError(`${column}: "${value}" is not a date-time`);
    return parsed;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    throw new QueryValidationError(`${column}: compare with a single value, not ${JSON.stringify(value)}`);
  }
  return value;
}

function jsonCondition(node: Extract<FilterNode, { kind: 'cmp' }>, info: TagInfo): Expr {
  const { field, value } = node;
  const at = (mode: 'value' | 'type' | 'length' | 'json', path = field.path): Expr => ({
    t: 'json',
    alias: info.alias,
    column: field.column,
    path,
    mode,
  });
  const typed = (v: unknown, inner: Expr): Expr => {
    if (typeof v === 'number') return { t: 'and', items: [typeIn(field, info, NUMERIC), inner] };
    if (typeof v === 'string') return { t: 'and', items: [typeIn(field, info, ['text']), inner] };
    if (v instanceof Date) return { t: 'and', items: [typeIn(field, info, ['text']), inner] };
    throw new QueryValidationError(
      `${field.column}.${field.path.join('.')}: "${node.op}" compares numbers or strings`,
    );
  };
  switch (node.op) {
    case '==':
      return jsonEquals(field, info, value);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return typed(value, { t: 'cmp', op: node.op, left: at('value'), right: { t: 'param', value } });
    case 'in':
      // `IN ()` is SQLite's, not PostgreSQL's: an empty list matches nothing.
      if ((value as unknown[]).length === 0) return { t: 'const', value: 'FALSE' };
      return {
        t: 'in',
        item: at('value'),
        values: (value as unknown[]).map((v) => ({ t: 'param', value: v })),
      };
    case 'like':
    case 'ilike':
      return typed(value, {
        t: 'like',
        item: at('value'),
        pattern: { t: 'param', value },
        caseInsensitive: node.op === 'ilike',
      });
    case 'of_type': {
      const map: Record<string, string[]> = {
        object: ['object'],
        array: ['array'],
        string: ['text'],
        null: ['null'],
        boolean: ['true', 'false'],
        number: NUMERIC,
      };
      return typeIn(field, info, map[value as string] as string[]);
    }
    case 'of_length':
    case 'longer':
    case 'shorter': {
      const op = node.op === 'of_length' ? '=' : node.op === 'longer' ? '>' : '<';
      return {
        t: 'and',
        items: [
          typeIn(field, info, ['array']),
          { t: 'cmp', op, left: at('length'), right: { t: 'param', value } },
        ],
      };
    }
    case 'has_key':
      return {
        t: 'and',
        items: [
          typeIn(field, info, ['object']),
          { t: 'not', item: { t: 'isnull', item: at('type', [...field.path, String(value)]) } },
        ],
      };
    case 'contains':
      return jsonContains(field, info, value);
  }
}

function jsonEquals(field: FieldRef, info: TagInfo, value: unknown): Expr {
  const at = (mode: 'value' | 'json'): Expr => ({
    t: 'json',
    alias: info.alias,
    column: field.column,
    path: field.path,
    mode,
  });
  if (value === null) return typeIn(field, info, ['null']);
  if (typeof value === 'boolean') return typeIn(field, info, [value ? 'true' : 'false']);
  if (typeof value === 'number')
    return { t: 'and', items: [typeIn(field, info, NUMERIC), eq(at('value'), { t: 'param', value })] };
  if (typeof value === 'string' || value instanceof Date) {
    return { t: 'and', items: [typeIn(field, info, ['text']), eq(at('value'), { t: 'param', value })] };
  }
  if (Array.isArray(value)) {
    return {
      t: 'and',
      items: [typeIn(field, info, ['array']), eq(at('json'), { t: 'param', value: JSON.stringify(value) })],
    };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return {
    t: 'and',
    items: [
      typeIn(field, info, ['object']),
      ...entries.map(([k, v]) => jsonEquals({ ...field, path: [...field.path, k] }, info, v)),
    ],
  };
}

/** PostgreSQL's `@>`: arrays contain the given elements, objects contain the given key/value pairs. */
function jsonContains(field: FieldRef, info: TagInfo, value: unknown): Expr {
  if (Array.isArray(value)) {
    return {
      t: 'and',
      items: [
        typeIn(field, info, ['array']),
        ...value.map((element): Expr => {
          if (typeof element === 'object' && element !== null) {
            throw new QueryValidationError(
              `${field.column}: "contains" with nested objects in a list is not supported`,
            );
          }
          return {
            t: 'jsonArrayHas',
            alias: info.alias,
            column: field.column,
            path: field.path,
            value: element,
          };
        }),
      ],
    };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    return {
      t: 'and',
      items: [
        typeIn(field, info, ['object']),
        ...entries.map(([k, v]) =>
          typeof v === 'object' && v !== null
            ? jsonContains({ ...field, path: [...field.path, k] }, info, v)
            : jsonEquals({ ...field, path: [...field.path, k] }, info, v),
        ),
      ],
    };
  }
  return jsonEquals(field, info, value);
}
