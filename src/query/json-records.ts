/**
 * A posted query's records written as JSON by SQLite itself, instead of values read into JavaScript, decoded,
 * formatted and written again (src/rest/querybuilder.ts): the explorer's grid never asked before (1,826 rows)
 * cost the server 13.4-17 ms of CPU that way, 7-10.4 ms so (one client, the two builds in turn).
 *
 * Each record is what the JavaScript path writes (keys sorted, dates as the reference's HTTP dates, `full_type`
 * where the record has a node_type or process_type): the same values, and for texts, integers and dates the
 * same bytes (a JSON column is written minified, with its numbers as stored). A value SQLite cannot write as
 * that path would (a date in another form, a JSON text that is not RFC 8259) makes its record NULL, and the
 * caller answers that query the JavaScript way. Queries with float casts (written with their point whole or
 * not), whole entities (`*`), a projected `full_type`, or keys JavaScript would reorder have no such statement.
 */
import type { Decoder } from './compile.js';
import type { SqlStatement } from '../storage/types.js';
import { ident } from './render-base.js';

/** Keys JavaScript orders before the others, whatever their place: an object's integer-like keys. */
const integerLike = (key: string) => /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/** A column of the select the records are written from. */
const cell = (column: string) => `${ident('q')}.${ident(column)}`;

const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * A text, a number or null as JSON: json_quote writes floats so that they read back exactly (17 digits), as
 * JavaScript does, if not always in the same form (`2.0` for 2), and integers past 2^53 with all their digits.
 */
function plain(x: string): string {
  return `json_quote(${x})`;
}

/** A boolean stored as a number, as decode.ts reads it (anything else as it is). */
function bool(x: string): string {
  return (
    `CASE WHEN ${x} IS NULL THEN 'null' WHEN typeof(${x}) IN ('integer', 'real') THEN ` +
    `CASE WHEN ${x} <> 0 THEN 'true' ELSE 'false' END ELSE json_quote(${x}) END`
  );
}

/** A JSON text minified, numbers as written; NULL for a text that is not RFC 8259 JSON (Python's NaN). */
function json(x: string): string {
  return (
    `CASE WHEN ${x} IS NULL THEN 'null' WHEN typeof(${x}) = 'text' THEN ` +
    `CASE WHEN json_valid(${x}, 1) THEN json(${x}) END ELSE json_quote(${x}) END`
  );
}

/**
 * A datetime as the JSON string of its HTTP date, by the function of native/http-date.c (which takes the texts
 * src/query/datetime.ts cuts its HTTP date from, and gives NULL for the others): the same in SQL cost the
 * explorer's grid 2.5 ms a column, more than writing its records in JavaScript.
 */
function datetime(x: string): string {
  return `quarry_json_http_date(${x})`;
}

const WRITERS = { int: plain, text: plain, bool, json, datetime } as const;

/** The SQL writing the value of the expression `x`, of a column of `type`, as JSON (or NULL: see above). */
export function valueSql(type: keyof typeof WRITERS, x: string): string {
  return WRITERS[type](x);
}

/** One field of a record: its key and the column holding its value. */
interface Field {
  key: string;
  column: string;
  type: keyof typeof WRITERS;
}

/**
 * The fields of `tag`'s record in the order the decoder writes them, or undefined when SQLite cannot write
 * them (`dates`: whether it has the HTTP date function).
 */
function fieldsOf(decoders: Decoder[], tag: string, dates: boolean): Field[] | undefined {
  const fields: Field[] = [];
  for (const d of decoders) {
    if (d.tag !== tag) continue;
    if (d.shape === 'entity') return undefined;
    const columns = d.shape === 'spread' ? d.columns : d.columns.slice(0, 1);
    for (const c of columns) {
      if (c.type === 'float' || (c.type === 'datetime' && !dates)) return undefined;
      fields.push({ key: d.shape === 'spread' ? c.name : d.key, column: c.as, type: c.type });
    }
  }
  return fields;
}

/** The SQL of one record: its fields by sorted key, `full_type` among them where the record has one. */
function recordSql(fields: Field[]): string | undefined {
  const keys = fields.map((f) => f.key);
  if (new Set(keys).size !== keys.length || keys.includes('full_type') || keys.some(integerLike))
    return undefined;
  const parts: { key: string; sql: string; optional?: string }[] = fields.map((f) => ({
    key: f.key,
    sql: `${quoted(`${JSON.stringify(f.key)}:`)} || ${valueSql(f.type, cell(f.column))}`,
  }));
  // fullTypeOf: node_type and process_type joined by `|`, left out when both are empty.
  const column = (key: string) => fields.find((x) => x.key === key)?.column;
  const [n, p] = [column('node_type'), column('process_type')];
  if (n !== undefined || p !== undefined) {
    const text = (c: string | undefined) => (c === undefined ? undefined : `coalesce(${cell(c)}, '')`);
    const present = [text(n), text(p)].filter((t) => t !== undefined);
    parts.push({
      key: 'full_type',
      sql: `'"full_type":' || json_quote(${text(n) ?? "''"} || '|' || ${text(p) ?? "''"})`,
      optional: present.map((t) => `${t} <> ''`).join(' OR '),
    });
  }
  if (parts.length === 0) return `'{}'`;
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // Commas between the parts; `full_type`, when the record has none, leaves its comma out too: it takes the
  // comma before it, or (first) the one after it.
  const pieces = parts.map((part, i) => {
    if (part.optional === undefined)
      return parts.slice(0, i).some((x) => x.optional === undefined) ? `',' || ${part.sql}` : part.sql;
    const [before, after] = i > 0 ? [`',' || `, ''] : ['', parts.length > 1 ? ` || ','` : ''];
    return `CASE WHEN ${part.optional} THEN ${before}${part.sql}${after} ELSE '' END`;
  });
  return `'{' || ${pieces.join(' || ')} || '}'`;
}

/**
 * The statement writing the answer's data for the SQLite select `select`: one row, its first column the bytes
 * `{"tag":[records],...}` (the answered `tags` in the answer's order, `{}` when no row matched) between two
 * texts bound first (empty; `writtenBetween` binds the answer's envelope there), its second the
 * number of rows. One value, so that a query process sends one value, not 2,000, and the answer sent is this
 * one copy of SQLite's bytes: each copy of the grid's 418 kB in JavaScript brought on more of V8's collections
 * of the whole heap (8 more in 500 answers). A record SQLite could not write is a NUL byte. Undefined when a
 * tag's records cannot be written by SQLite as the answer has them. `dates`: whether the connections have
 * the HTTP date function (src/storage/sqlite-extensions.ts).
 */
export function jsonRecords(
  select: SqlStatement,
  decoders: Decoder[],
  tags: string[],
  dates: boolean,
): SqlStatement | undefined {
  if (tags.length === 0 || tags.some(integerLike)) return undefined;
  // One concat() of every piece: SQLite's `||` copies what it has written so far at each step (0.3 ms more
  // for the grid's 418 kB). Pieces that are NULL are left out: the lists' brackets when no row matched, `{}`
  // when one did.
  const rowsOnly = (text: string) => `CASE WHEN count(*) > 0 THEN ${quoted(text)} END`;
  const pieces = [`CASE WHEN count(*) = 0 THEN '{}' END`];
  for (const [i, tag] of tags.entries()) {
    const fields = fieldsOf(decoders, tag, dates);
    const sql = fields === undefined ? undefined : recordSql(fields);
    if (sql === undefined) return undefined;
    // The records keep the select's order: SQLite feeds an aggregate the rows of a subquery in its ORDER BY's
    // order (rows travel from query processes the same way, src/storage/query-child.ts). A record SQLite
    // cannot write is a NUL character, which no JSON text it writes holds (json_quote escapes it): counting
    // the NULL records instead made SQLite write each record twice.
    pieces.push(rowsOnly(`${i === 0 ? '{' : '],'}${JSON.stringify(tag)}:[`));
    pieces.push(`group_concat(coalesce(${sql}, char(0)), ',')`);
  }
  pieces.push(rowsOnly(']}'));
  // As bytes: a JavaScript string of the grid's 418 kB cost 1.5 ms more to make into the bytes sent.
  return {
    sql: `SELECT CAST(concat(?, ${pieces.join(', ')}, ?) AS BLOB), count(*) FROM (${select.sql}) AS ${ident('q')}`,
    params: ['', '', ...select.params],
    writesAnswer: true,
  };
}

/** A records statement (jsonRecords) with `head` and `tail` bound as the texts written around the data. */
export function writtenBetween(records: SqlStatement, head: string, tail: string): SqlStatement {
  return { ...records, params: [head, tail, ...records.params.slice(2)] };
}
