/** Render the SQL AST as SQLite SQL with positional `?` parameters (archives and sqlite_dos profiles). */
import type { PlanHints } from './index.js';
import { isParam } from './params.js';
import type { Expr, Select } from './sql-ast.js';
import { ident, renderWith, SqlRenderer } from './render-base.js';

/**
 * SQLite JSON paths: `$."a"."b"`, array positions as `[n]`. Always bound as a parameter. A key is written as a
 * JSON string, which SQLite's path reader unescapes: keys holding `"` or `\` (legal AiiDA keys) are found
 * instead of breaking the path.
 */
export function sqliteJsonPath(path: string[]): string {
  return '$' + path.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${JSON.stringify(p)}`)).join('');
}

/** Stored datetimes are naive UTC text `YYYY-MM-DD HH:MM:SS.ffffff`; parameters use the same form to compare. */
function sqliteDatetime(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '000');
}

/** A value as better-sqlite3 binds it. */
export function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return sqliteDatetime(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

function wholeNumber(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`LIMIT and OFFSET take whole numbers, got ${value}`);
  return String(value);
}

const CAST = { real: 'REAL', integer: 'INTEGER', text: 'TEXT', boolean: 'INTEGER' } as const;

/**
 * A window of the nodes of one type read from their table in creation order reads this many of its entries at
 * most (its offset and its rows) and looks up its rows by id: well under a millisecond, so it may run inline.
 */
const KEYED_WINDOW_ROWS = 1_000;

class SqliteRenderer extends SqlRenderer {
  constructor(private readonly hints: PlanHints = {}) {
    super();
  }

  /**
   * A page of the nodes of one type by -ctime, with their table in that order at hand: the page's ids are read
   * from it (its window alone, in its key order) and only those nodes are looked up and put in order.
   */
  override select(s: Select): string {
    const table = this.hints.nodeTypeOrder;
    const nodeType = table === undefined ? undefined : pageOfOneType(s);
    if (table === undefined || nodeType === undefined) return super.select(s);
    this.hints.nodeTypeOrder = undefined;
    this.keyedWindow = (s.limit ?? 0) + (s.offset ?? 0) <= KEYED_WINDOW_ROWS;
    const t = ident(s.from.alias);
    const columns = s.columns.map((c) => `${this.column(c.expr)} AS ${ident(c.as)}`).join(', ');
    const ids =
      `SELECT "id" FROM ${ident(table)} WHERE "node_type" = ${this.expr(nodeType)} ` +
      `ORDER BY "ctime" DESC, "id" ASC ${this.limitClause(s.limit, s.offset)}`;
    return (
      `SELECT ${columns} FROM ${ident(s.from.table)} AS ${t} WHERE ${t}."id" IN (${ids}) ` +
      `ORDER BY ${t}."ctime" DESC, ${t}."id" ASC`
    );
  }

  /** With an ordered scan wanted, the outer query's own conditions are kept away from their indexes. */
  protected override condition(s: Select): string {
    const outer = this.hints.orderedScan && s.orderBy.length > 0 && this.unindexedAlias === undefined;
    if (!outer) return super.condition(s);
    this.unindexedAlias = s.from.alias;
    try {
      return super.condition(s);
    } finally {
      this.unindexedAlias = undefined;
      this.hints.orderedScan = false;
    }
  }

  protected placeholder(value: unknown): string {
    // A Param stays in place, to be bound (and converted) when the plan runs.
    this.params.push(isParam(value) ? value : sqliteValue(value));
    return '?';
  }

  /**
   * Written as literals, not parameters: SQLite plans with the value of a bound LIMIT, so every new binding
   * expires the prepared statement and each run parses and plans it again (4x the time of a point lookup).
   */
  protected limitClause(limit: number | undefined, offset: number | undefined): string {
    const clause = `LIMIT ${wholeNumber(limit ?? -1)}`;
    return offset === undefined ? clause : `${clause} OFFSET ${wholeNumber(offset)}`;
  }

  /**
   * A text SQLite plans by, written into the SQL rather than bound: SQLite plans a LIKE by its pattern (a
   * prefix becomes a range of the column's index), so a bound pattern expires the prepared statement at every
   * binding and each run parses and plans it again (a quarter of the SQL time of a 20-row join of two types).
   * Written in, the statement is planned once per pattern and kept like any other. (Values holding NUL, which
   * would end the SQL's text, are refused by validate.ts.)
   */
  private plannedValue(e: Expr): string {
    if (e.t !== 'param' || typeof e.value !== 'string') return this.expr(e);
    return `'${e.value.replaceAll("'", "''")}'`;
  }

  protected dialectExpr(e: Expr): string {
    switch (e.t) {
      case 'json': {
        const column = `${ident(e.alias)}.${ident(e.column)}`;
        if (e.mode === 'json')
          return e.path.length === 0 ? column : `${column} -> ${this.placeholder(sqliteJsonPath(e.path))}`;
        const fn = { value: 'json_extract', type: 'json_type', length: 'json_array_length' }[e.mode];
        return `${fn}(${column}, ${this.placeholder(sqliteJsonPath(e.path))})`;
      }
      case 'param':
        return this.placeholder(e.value);
      case 'const':
        return { TRUE: '1', FALSE: '0', NULL: 'NULL' }[e.value];
      case 'cmp':
        // JSON values compared as JSON text are normalised on both sides.
        if (e.left.t === 'json' && e.left.mode === 'json') {
          return `json(${this.expr(e.left)}) ${e.op} json(${this.expr(e.right)})`;
        }
        return `${this.expr(e.left)} ${e.op} ${this.expr(e.right)}`;
      case 'in':
        return `${this.expr(e.item)} IN (${e.values.map((v) => this.expr(v)).join(', ')})`;
      case 'like':
        // The connection runs with case_sensitive_like, so ilike compares lower-cased text, as aiida does.
        return e.caseInsensitive
          ? `lower(${this.expr(e.item)}) LIKE lower(${this.expr(e.pattern)}) ESCAPE '\\'`
          : `${this.expr(e.item)} LIKE ${this.plannedValue(e.pattern)} ESCAPE '\\'`;
      case 'cast':
        return `CAST(${this.expr(e.item)} AS ${CAST[e.to]})`;
      case 'jsonArrayHas': {
        const column = `${ident(e.alias)}.${ident(e.column)}`;
        const path = this.placeholder(sqliteJsonPath(e.path));
        return `EXISTS (SELECT 1 FROM json_each(${column}, ${path}) AS je WHERE je.value = ${this.placeholder(e.value)})`;
      }
      default:
        throw new Error(`unrendered expression ${e.t}`);
    }
  }
}

/**
 * The value compared when `s` is a window of the nodes of one node type by ctime descending then id ascending,
 * nothing else asked; otherwise undefined.
 */
function pageOfOneType(s: Select): Expr | undefined {
  const alias = s.from.alias;
  const column = (e: Expr | undefined, name: string) =>
    e?.t === 'col' && e.alias === alias && e.column === name;
  const where = s.where?.t === 'and' && s.where.items.length === 1 ? s.where.items[0] : s.where;
  const [first, second, ...more] = s.orderBy;
  const plain =
    s.from.table === 'db_dbnode' &&
    s.ctes.length === 0 &&
    s.joins.length === 0 &&
    !s.distinct &&
    s.limit !== undefined &&
    more.length === 0 &&
    first?.desc === true &&
    column(first.expr, 'ctime') &&
    second?.desc === false &&
    column(second.expr, 'id');
  if (!plain || where?.t !== 'cmp' || where.op !== '=' || !column(where.left, 'node_type')) return undefined;
  return where.right.t === 'param' ? where.right : undefined;
}

const sqlite = renderWith<PlanHints>((hints) => new SqliteRenderer({ ...hints }));
export const renderSqlite = sqlite.select;
export const renderSqliteCount = sqlite.count;
