/** Render the SQL AST as SQLite SQL with positional parameters. */
import type { SqlStatement } from '../storage/types.js';
import type { Expr, Select, WalkCte } from './sql-ast.js';

const ident = (name: string) => `"${name}"`;

/** SQLite JSON paths: `$."a"."b"`, array positions as `[n]`. Always bound as a parameter. */
export function sqliteJsonPath(path: string[]): string {
  return '$' + path.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `."${p}"`)).join('');
}

/** Stored datetimes are naive UTC text `YYYY-MM-DD HH:MM:SS.ffffff`; parameters use the same form to compare. */
function sqliteDatetime(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '000');
}

function bind(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return sqliteDatetime(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

class Renderer {
  readonly params: unknown[] = [];

  param(value: unknown): string {
    this.params.push(bind(value));
    return '?';
  }

  expr(e: Expr): string {
    switch (e.t) {
      case 'col':
        return `${ident(e.alias)}.${ident(e.column)}`;
      case 'json': {
        const column = `${ident(e.alias)}.${ident(e.column)}`;
        if (e.mode === 'json')
          return e.path.length === 0 ? column : `${column} -> ${this.param(sqliteJsonPath(e.path))}`;
        const fn = { value: 'json_extract', type: 'json_type', length: 'json_array_length' }[e.mode];
        return `${fn}(${column}, ${this.param(sqliteJsonPath(e.path))})`;
      }
      case 'param':
        return this.param(e.value);
      case 'const':
        return { TRUE: '1', FALSE: '0', NULL: 'NULL' }[e.value];
      case 'cmp':
        // JSON values compared as JSON text are normalised on both sides.
        if (e.left.t === 'json' && e.left.mode === 'json') {
          return `json(${this.expr(e.left)}) ${e.op} json(${this.expr(e.right)})`;
        }
        return `${this.expr(e.left)} ${e.op} ${this.expr(e.right)}`;
      case 'and':
      case 'or':
        return `(${e.items.map((i) => this.expr(i)).join(e.t === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `NOT (${this.expr(e.item)})`;
      case 'isnull':
        return `${this.expr(e.item)} IS NULL`;
      case 'in':
        return `${this.expr(e.item)} IN (${e.values.map((v) => this.expr(v)).join(', ')})`;
      case 'like':
        // The connection runs with case_sensitive_like, so ilike compares lower-cased text, as aiida does.
        return e.caseInsensitive
          ? `lower(${this.expr(e.item)}) LIKE lower(${this.expr(e.pattern)}) ESCAPE '\\'`
          : `${this.expr(e.item)} LIKE ${this.expr(e.pattern)} ESCAPE '\\'`;
      case 'cast':
        return `CAST(${this.expr(e.item)} AS ${{ real: 'REAL', integer: 'INTEGER', text: 'TEXT', boolean: 'INTEGER' }[e.to]})`;
      case 'jsonArrayHas': {
        const column = `${ident(e.alias)}.${ident(e.column)}`;
        const path = this.param(sqliteJsonPath(e.path));
        return `EXISTS (SELECT 1 FROM json_each(${column}, ${path}) AS je WHERE je.value = ${this.param(e.value)})`;
      }
      case 'agg':
        return e.item.t === 'const' ? `${e.fn}(*)` : `${e.fn}(${this.expr(e.item)})`;
    }
  }

  walk(cte: WalkCte): string {
    // Parameters are collected in text order, so each piece is rendered where it stands.
    const name = ident(cte.name);
    const down = cte.direction === 'down';
    const types = () => cte.linkTypes.map((t) => this.param(t)).join(', ');
    const firstTypes = types();
    const seed = this.select(cte.seed);
    const stepTypes = types();
    const depth = this.param(cte.maxDepth);
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
    const columns = s.columns.map((c) => `${this.expr(c.expr)} AS ${ident(c.as)}`).join(', ');
    parts.push(`SELECT ${s.distinct ? 'DISTINCT ' : ''}${columns}`);
    parts.push(`FROM ${ident(s.from.table)} AS ${ident(s.from.alias)}`);
    for (const j of s.joins) {
      parts.push(
        `${j.kind === 'left' ? 'LEFT JOIN' : 'JOIN'} ${ident(j.table)} AS ${ident(j.alias)} ON ${this.expr(j.on)}`,
      );
    }
    if (s.where) parts.push(`WHERE ${this.expr(s.where)}`);
    if (s.orderBy.length > 0) {
      parts.push(
        `ORDER BY ${s.orderBy.map((o) => `${this.expr(o.expr)} ${o.desc ? 'DESC' : 'ASC'}`).join(', ')}`,
      );
    }
    if (s.limit !== undefined || s.offset !== undefined) {
      parts.push(`LIMIT ${this.param(s.limit ?? -1)}`);
      if (s.offset !== undefined) parts.push(`OFFSET ${this.param(s.offset)}`);
    }
    return parts.join(' ');
  }
}

export function renderSqlite(select: Select): SqlStatement {
  const r = new Renderer();
  const sql = r.select(select);
  return { sql, params: r.params };
}

export function renderSqliteCount(count: Select | { wrap: Select }): SqlStatement {
  if ('wrap' in count) {
    const r = new Renderer();
    const inner = r.select(count.wrap);
    return { sql: `SELECT count(*) AS n FROM (${inner}) AS sub`, params: r.params };
  }
  return renderSqlite(count);
}
