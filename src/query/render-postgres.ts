/**
 * Render the SQL AST as PostgreSQL SQL with `$n` parameters (core.psql_dos profiles). JSON columns are
 * jsonb: values are compared as jsonb (numbers numerically, as aiida's own PostgreSQL queries do), and the
 * compiler's SQLite-style JSON type names are translated to jsonb_typeof's.
 */
import type { Expr } from './sql-ast.js';
import { ident, renderWith, SqlRenderer } from './render-base.js';

type JsonExpr = Extract<Expr, { t: 'json' }>;

const CAST = { real: 'double precision', integer: 'bigint', text: 'text', boolean: 'boolean' } as const;

/** SQLite json_type names (what the compiler tests) -> jsonb_typeof names; booleans are tested by value. */
const TYPE_NAMES: Record<string, string> = {
  object: 'object',
  array: 'array',
  text: 'string',
  integer: 'number',
  real: 'number',
  null: 'null',
};

/** Columns stored with PostgreSQL's uuid type: pattern matching needs their text form. */
const UUID_COLUMNS = new Set(['uuid']);

const isJson = (e: Expr): e is JsonExpr => e.t === 'json';

const samePlace = (a: JsonExpr, b: JsonExpr) =>
  a.alias === b.alias && a.column === b.column && a.path.join('\u0000') === b.path.join('\u0000');

/** jsonb_typeof's name for a value bound as jsonb (dates are bound as their ISO text). */
function jsonTypeOf(value: unknown): string | undefined {
  if (typeof value === 'string' || value instanceof Date) return 'string';
  if (typeof value === 'number') return 'number';
  return undefined;
}

/**
 * The items of a conjunction without the type tests that an equality beside them already implies. The compiler
 * guards `attributes.x == "eV"` with a test of x's type, which SQLite needs (its JSON values compare as SQL
 * values); jsonb equality compares types too, and each test reads the JSON document once more per row.
 */
function withoutImpliedTypeTests(items: Expr[]): Expr[] {
  const implied = (test: Expr) =>
    test.t === 'in' &&
    isJson(test.item) &&
    test.item.mode === 'type' &&
    items.some((other) => {
      if (other.t !== 'cmp' || other.op !== '=' || other.right.t !== 'param') return false;
      if (!isJson(other.left) || other.left.mode !== 'value' || !samePlace(other.left, test.item as JsonExpr))
        return false;
      const type = jsonTypeOf(other.right.value);
      return test.values.some((v) => v.t === 'param' && TYPE_NAMES[String(v.value)] === type);
    });
  const kept = items.filter((item) => !implied(item));
  return kept.length === items.length ? items : kept;
}

class PostgresRenderer extends SqlRenderer {
  override expr(e: Expr): string {
    if (e.t !== 'and') return super.expr(e);
    const items = withoutImpliedTypeTests(e.items);
    return items.length === 1 ? this.expr(items[0] as Expr) : super.expr({ ...e, items });
  }

  protected placeholder(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** A value bound as jsonb, compared with a value inside a JSON column. */
  private jsonParam(value: unknown): string {
    return `${this.placeholder(JSON.stringify(value instanceof Date ? value.toISOString() : value))}::jsonb`;
  }

  protected limitClause(limit: number | undefined, offset: number | undefined): string {
    const parts: string[] = [];
    if (limit !== undefined) parts.push(`LIMIT ${this.placeholder(limit)}`);
    if (offset !== undefined) parts.push(`OFFSET ${this.placeholder(offset)}`);
    return parts.join(' ');
  }

  private columnOf(e: JsonExpr): string {
    return `${ident(e.alias)}.${ident(e.column)}`;
  }

  /** The jsonb value at the path (the column itself for an empty path). */
  private jsonb(e: JsonExpr): string {
    const column = this.columnOf(e);
    return e.path.length === 0 ? column : `(${column} #> ${this.placeholder(e.path)}::text[])`;
  }

  /** The value at the path as text (strings unquoted), for LIKE, casts and projections of scalars. */
  private jsonText(e: JsonExpr): string {
    const column = this.columnOf(e);
    return e.path.length === 0 ? `${column}::text` : `(${column} #>> ${this.placeholder(e.path)}::text[])`;
  }

  /** An expression as text, for pattern matching. */
  private text(e: Expr): string {
    if (isJson(e)) return this.jsonText(e);
    if (e.t === 'col' && UUID_COLUMNS.has(e.column)) return `${this.expr(e)}::text`;
    return this.expr(e);
  }

  protected override column(e: Expr): string {
    return isJson(e) && e.mode === 'value' ? this.jsonText(e) : this.expr(e);
  }

  protected dialectExpr(e: Expr): string {
    switch (e.t) {
      case 'json':
        return this.jsonExpr(e);
      case 'param':
        return this.placeholder(e.value);
      case 'const':
        return e.value;
      case 'cmp': {
        const left = e.left;
        if (isJson(left) && left.mode === 'json' && e.right.t === 'param') {
          // The compiler passes whole JSON documents as JSON text already.
          return `${this.jsonb(left)} ${e.op} ${this.placeholder(e.right.value)}::jsonb`;
        }
        if (isJson(left) && left.mode === 'value' && e.right.t === 'param') {
          return `${this.jsonb(left)} ${e.op} ${this.jsonParam(e.right.value)}`;
        }
        return `${this.expr(left)} ${e.op} ${this.expr(e.right)}`;
      }
      case 'in':
        return this.inExpr(e);
      case 'like':
        return `${this.text(e.item)} ${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${this.expr(e.pattern)} ESCAPE '\\'`;
      case 'cast':
        return `CAST(${isJson(e.item) ? this.jsonText(e.item) : this.expr(e.item)} AS ${CAST[e.to]})`;
      case 'jsonArrayHas':
        return `${this.jsonb({ t: 'json', alias: e.alias, column: e.column, path: e.path, mode: 'json' })} @> ${this.jsonParam([e.value])}`;
      case 'agg':
        // jsonb has no sum/max; aggregates of JSON values work on their numbers.
        return isJson(e.item) && e.fn !== 'count'
          ? `${e.fn}(CAST(${this.jsonText(e.item)} AS double precision))`
          : `${e.fn}(${this.expr(e.item)})`;
      default:
        throw new Error(`unrendered expression ${e.t}`);
    }
  }

  private jsonExpr(e: JsonExpr): string {
    switch (e.mode) {
      case 'json':
      case 'value':
        return this.jsonb(e);
      case 'type':
        return `jsonb_typeof(${this.jsonb(e)})`;
      case 'length': {
        // jsonb_array_length raises on non-arrays, and AND does not fix the order of evaluation.
        const value = this.jsonb(e);
        return `CASE WHEN jsonb_typeof(${value}) = 'array' THEN jsonb_array_length(${value}) END`;
      }
    }
  }

  private inExpr(e: Extract<Expr, { t: 'in' }>): string {
    const item = e.item;
    if (isJson(item) && item.mode === 'type') return this.typeTest(item, e.values);
    if (isJson(item) && item.mode === 'value') {
      const values = e.values.map((v) => (v.t === 'param' ? this.jsonParam(v.value) : this.expr(v)));
      return `${this.jsonb(item)} IN (${values.join(', ')})`;
    }
    return `${this.expr(item)} IN (${e.values.map((v) => this.expr(v)).join(', ')})`;
  }

  /** `json_type(x) IN (...)` of the compiler, in jsonb terms: booleans by value, the rest by jsonb_typeof. */
  private typeTest(item: JsonExpr, values: Expr[]): string {
    const names = values.map((v) => (v.t === 'param' ? String(v.value) : ''));
    const tests: string[] = [];
    const typeNames = [...new Set(names.map((n) => TYPE_NAMES[n]).filter((n) => n !== undefined))];
    const hasTrue = names.includes('true');
    const hasFalse = names.includes('false');
    if (hasTrue && hasFalse) typeNames.push('boolean');
    if (typeNames.length > 0) {
      const list = typeNames.map((n) => this.placeholder(n)).join(', ');
      tests.push(`jsonb_typeof(${this.jsonb(item)}) IN (${list})`);
    }
    if (hasTrue !== hasFalse) tests.push(`${this.jsonb(item)} = ${this.jsonParam(hasTrue)}`);
    if (tests.length === 0) return 'FALSE';
    return tests.length === 1 ? (tests[0] as string) : `(${tests.join(' OR ')})`;
  }
}

const postgres = renderWith(() => new PostgresRenderer());
export const renderPostgres = postgres.select;
export const renderPostgresCount = postgres.count;
