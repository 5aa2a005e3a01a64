/**
 * What every dialect renders alike: SELECT structure, joins, the recursive walk over links, boolean
 * connectives. Parameters are collected in text order, so each piece is rendered where it stands.
 */
import type { SqlStatement } from '../storage/types.js';
import { MAX_BOUND_VALUES, QueryValidationError } from './model.js';
import { isPointLookup } from './point-lookup.js';
import type { Expr, Select, WalkCte } from './sql-ast.js';

export const ident = (name: string) => `"${name}"`;

/**
 * Terms of an AND/OR written in one run. SQLite's parser nests `a OR b OR c ...` one level per term and refuses
 * an expression deeper than 1000 levels; longer lists are written as balanced groups of runs instead.
 */
const CONNECTIVE_RUN = 8;

export abstract class SqlRenderer {
  readonly params: unknown[] = [];
  /** Columns of this alias are written so that no index serves their conditions (SQLite's unary +). */
  protected unindexedAlias?: string;
  /** Set by a dialect that wrote the statement as a short window read through a key: cheap at any size. */
  keyedWindow = false;

  /** The placeholder of one more bound value (already converted for the driver). */
  protected abstract placeholder(value: unknown): string;
  /** The dialect's LIMIT/OFFSET clause. */
  protected abstract limitClause(limit: number | undefined, offset: number | undefined): string;
  /** Expressions whose SQL differs between dialects (JSON access, LIKE, casts, constants). */
  protected abstract dialectExpr(e: Expr): string;

  expr(e: Expr): string {
    switch (e.t) {
      case 'col':
        return `${e.alias === this.unindexedAlias ? '+' : ''}${ident(e.alias)}.${ident(e.column)}`;
      case 'and':
      case 'or':
        return this.connective(e.items, e.t === 'and' ? ' AND ' : ' OR ');
      case 'not':
        return `NOT (${this.expr(e.item)})`;
      case 'isnull':
        return `${this.expr(e.item)} IS NULL`;
      case 'agg':
        return e.item.t === 'const' ? `${e.fn}(*)` : `${e.fn}(${this.expr(e.item)})`;
      default:
        return this.dialectExpr(e);
    }
  }

  private connective(items: Expr[], op: string): string {
    if (items.length <= CONNECTIVE_RUN) return `(${items.map((i) => this.expr(i)).join(op)})`;
    const half = Math.ceil(items.length / 2);
    return `(${this.connective(items.slice(0, half), op)}${op}${this.connective(items.slice(half), op)})`;
  }

  walk(cte: WalkCte): string {
    const name = ident(cte.name);
    const down = cte.direction === 'down';
    const types = () => cte.linkTypes.map((t) => this.placeholder(t)).join(', ');
    const firstTypes = types();
    const seed = this.select(cte.seed);
    const stepTypes = types();
    const depth = this.placeholder(cte.maxDepth);
    const [seedColumn, stepSelect, stepJoin] = down
      ? ['l.input_id', 'w.ancestor_id, l.output_id', 'l.input_id = w.descendant_id']
      : ['l.output_id', 'l.input_id, w.descendant_id', 'l.output_id = w.ancestor_id'];
    return (
      `${name}(ancestor_id, descendant_id, depth) AS (` +
      `SELECT l.input_id, l.output_id, 0 FROM db_dblink AS l WHERE l.type IN (${firstTypes}) AND ${seedColumn} IN (${seed}) ` +
      `UNION ALL SELECT ${stepSelect}, w.depth + 1 FROM ${name} AS w JOIN db_dblink AS l ON ${stepJoin} ` +
      `WHERE l.type IN (${stepTypes}) AND w.depth < ${depth})`
    );
  }

  select(s: Select): string {
    const parts: string[] = [];
    if (s.ctes.length > 0) parts.push(`WITH RECURSIVE ${s.ctes.map((c) => this.walk(c)).join(', ')}`);
    const columns = s.columns.map((c) => `${this.column(c.expr)} AS ${ident(c.as)}`).join(', ');
    parts.push(`SELECT ${s.distinct ? 'DISTINCT ' : ''}${columns}`);
    parts.push(`FROM ${ident(s.from.table)} AS ${ident(s.from.alias)}`);
    for (const j of s.joins) {
      parts.push(
        `${j.kind === 'left' ? 'LEFT JOIN' : 'JOIN'} ${ident(j.table)} AS ${ident(j.alias)} ON ${this.expr(j.on)}`,
      );
    }
    if (s.where) parts.push(`WHERE ${this.condition(s)}`);
    if (s.orderBy.length > 0) {
      parts.push(
        `ORDER BY ${s.orderBy.map((o) => `${this.expr(o.expr)} ${o.desc ? 'DESC' : 'ASC'}`).join(', ')}`,
      );
    }
    if (s.limit !== undefined || s.offset !== undefined) parts.push(this.limitClause(s.limit, s.offset));
    return parts.join(' ');
  }

  /** The WHERE clause of a select; dialects may steer their planner here. */
  protected condition(s: Select): string {
    return this.expr(s.where as Expr);
  }

  /** A projected column; dialects may render it differently from the same expression in a condition. */
  protected column(e: Expr): string {
    return this.expr(e);
  }
}

/** The parameters of a rendered statement, refused when more than a database binds to one statement. */
function checked(params: unknown[]): unknown[] {
  if (params.length > MAX_BOUND_VALUES) {
    throw new QueryValidationError(
      `the query needs ${params.length} bound values (filter values, "in" entries, JSON paths); at most ` +
        `${MAX_BOUND_VALUES}: use fewer conditions or shorter "in" lists, or split the query`,
    );
  }
  return params;
}

/** A statement and its counting form, rendered by a fresh renderer of the dialect each. */
export function renderWith<H>(make: (hints?: H) => SqlRenderer) {
  return {
    select(select: Select, hints?: H): SqlStatement {
      const r = make(hints);
      const sql = r.select(select);
      return { sql, params: checked(r.params), pointLookup: isPointLookup(select) || r.keyedWindow };
    },
    count(count: Select | { wrap: Select }): SqlStatement {
      const r = make();
      if ('wrap' in count) {
        const inner = r.select(count.wrap);
        return {
          sql: `SELECT count(*) AS n FROM (${inner}) AS sub`,
          params: checked(r.params),
          pointLookup: isPointLookup(count.wrap),
        };
      }
      const sql = r.select(count);
      return { sql, params: checked(r.params), pointLookup: isPointLookup(count) };
    },
  };
}
