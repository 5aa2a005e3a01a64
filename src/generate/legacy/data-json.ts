/**
 * data.json of a legacy archive, produced as a sequence of text chunks read row by row from the generated
 * graph's database: nothing of the size of the archive is held in memory, so 10^6 nodes (a data.json of about
 * a gigabyte) are written in the memory of a few rows.
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  computerRow,
  conversionOf,
  exportTime,
  groupRow,
  linkRow,
  nodeAttributes,
  nodeExtras,
  nodeRow,
  type Json,
  type NodeRow,
} from './translate.js';
import type { LegacyFormat } from './versions.js';

const CHUNK = 1 << 16;

/** Joins small pieces into chunks of about 64 KiB. */
function* chunked(pieces: Iterable<string>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    parts.push(piece);
    size += piece.length;
    if (size >= CHUNK) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** `{"k1": v1, "k2": v2}` from entries produced one at a time. */
function* object(entries: Iterable<[string, () => Iterable<string> | string]>): Generator<string> {
  yield '{';
  let first = true;
  for (const [key, value] of entries) {
    yield `${first ? '' : ', '}${JSON.stringify(key)}: `;
    first = false;
    const v = value();
    if (typeof v === 'string') yield v;
    else yield* v;
  }
  yield '}';
}

function* array(items: Iterable<string>): Generator<string> {
  yield '[';
  let first = true;
  for (const item of items) {
    yield first ? item : `, ${item}`;
    first = false;
  }
  yield ']';
}

function* map<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** The text of data.json, in chunks. */
export function dataJson(f: LegacyFormat, db: BetterSqlite3.Database): Iterable<string> {
  const nodes = () => db.prepare('SELECT * FROM db_dbnode ORDER BY id').iterate() as Iterable<NodeRow>;
  const perNode = (value: (node: NodeRow) => unknown) => () =>
    object(map(nodes(), (n): [string, () => string] => [String(n.id), () => JSON.stringify(value(n))]));
  const rows = (sql: string, row: (r: never) => Json) => () =>
    object(
      map(db.prepare(sql).iterate() as Iterable<{ id: number }>, (r): [string, () => string] => [
        String(r.id),
        () => JSON.stringify(row(r as never)),
      ]),
    );

  const entities: [string, () => Iterable<string>][] = [
    [f.entity('Node'), perNode((n) => nodeRow(f, n))],
    [f.entity('Group'), rows('SELECT * FROM db_dbgroup ORDER BY id', (g) => groupRow(f, g))],
    [f.entity('Computer'), rows('SELECT * FROM db_dbcomputer ORDER BY id', (c) => computerRow(f, c))],
    [
      f.entity('User'),
      rows('SELECT * FROM db_dbuser ORDER BY id', (u: Json) => ({
        first_name: u.first_name,
        last_name: u.last_name,
        institution: u.institution,
        email: u.email,
      })),
    ],
  ];
  // aiida-core's export names an entity only when it exports rows of it (its own archives hold no Log key).
  const any = (table: string) =>
    db.prepare(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`).get() as { any: number };
  if (f.hasLogsAndComments && any('db_dblog').any)
    entities.push([
      f.entity('Log'),
      rows('SELECT * FROM db_dblog ORDER BY id', (l: Json) => ({
        uuid: l.uuid,
        time: exportTime(String(l.time)),
        loggername: l.loggername,
        levelname: l.levelname,
        message: l.message,
        metadata: JSON.parse(String(l.metadata)),
        dbnode: l.dbnode_id,
      })),
    ]);
  if (f.hasLogsAndComments && any('db_dbcomment').any)
    entities.push([
      f.entity('Comment'),
      rows('SELECT * FROM db_dbcomment ORDER BY id', (c: Json) => ({
        uuid: c.uuid,
        ctime: exportTime(String(c.ctime)),
        mtime: exportTime(String(c.mtime)),
        content: c.content,
        dbnode: c.dbnode_id,
        user: c.user_id,
      })),
    ]);

  const links = () =>
    array(
      map(
        db
          .prepare(
            `SELECT i.uuid AS input, o.uuid AS output, l.label, l.type, i.node_type AS input_type
             FROM db_dblink l JOIN db_dbnode i ON i.id = l.input_id JOIN db_dbnode o ON o.id = l.output_id
             ORDER BY l.id`,
          )
          .iterate() as Iterable<Parameters<typeof linkRow>[1]>,
        (l) => JSON.stringify(linkRow(f, l)),
      ),
    );

  const groupsUuid = () => object(groupMembers(db));

  const sections: Record<string, () => Iterable<string>> = {
    links_uuid: links,
    export_data: () => object(entities),
    groups_uuid: groupsUuid,
    node_attributes: perNode((n) => nodeAttributes(f, n)),
    node_attributes_conversion: perNode((n) => conversionOf(nodeAttributes(f, n))),
    node_extras: perNode((n) => nodeExtras(n)),
    node_extras_conversion: perNode((n) => conversionOf(nodeExtras(n))),
  };
  return chunked(object(f.dataKeys.map((key): [string, () => Iterable<string>] => [key, sections[key]!])));
}

/** groups_uuid: each group's member UUIDs, one group at a time (members come ordered by group). */
function* groupMembers(db: BetterSqlite3.Database): Generator<[string, () => Iterable<string>]> {
  const members = db
    .prepare(
      `SELECT g.uuid AS g, n.uuid AS n FROM db_dbgroup_dbnodes m
       JOIN db_dbgroup g ON g.id = m.dbgroup_id JOIN db_dbnode n ON n.id = m.dbnode_id
       ORDER BY m.dbgroup_id, m.id`,
    )
    .iterate() as Iterator<{ g: string; n: string }>;
  let next = members.next();
  while (!next.done) {
    const group = next.value.g;
    yield [
      group,
      function* () {
        yield '[';
        let first = true;
        while (!next.done && next.value.g === group) {
          yield `${first ? '' : ', '}${JSON.stringify(next.value.n)}`;
          first = false;
          next = members.next();
        }
        yield ']';
      },
    ];
  }
}
