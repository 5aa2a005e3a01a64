/**
 * What `GET /export/` writes, checked without aiida-core: its db.sqlite3 has the sqlite_zip schema of an archive
 * aiida-core wrote (the rich conformance archive's, and aiida-core's own test archive's when present): the same
 * tables, columns, types, constraints and indexes, and no alembic_version table (main_0001 is in metadata.json);
 * metadata.json says what was asked and with which rules; repo/ holds every file of the nodes, each named by
 * the sha256 of its bytes; and Quarry serving the export answers every request about an included node as it
 * answers about it in the source.
 */
import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile, sharedArchive } from './conformance/corpus.js';
import { appOn } from './helpers.js';
import { databaseIn, fetchExport, sameAnswers, zipEntries } from './support/export-files.js';

const CALCJOB = '872e983d-1456-47d7-b7f2-4f3f3a976653';
/** "favorites" (17 nodes of several types) and "ünïcode group ✓" (4). */
const GROUPS = ['7968402c-153d-4d6e-8023-2fe9d9e4b8d4', 'ac6d0aa5-b390-49a5-824d-13a5769e7b73'];
const QUERY = `nodes=${CALCJOB}&groups=${GROUPS.join(',')}`;

/** Every schema fact SQLite knows of a database: its objects' DDL and each table's columns, keys and indexes. */
function schemaOf(db: BetterSqlite3.Database) {
  const objects = db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all() as { type: string; name: string; tbl_name: string; sql: string }[];
  const tables = objects.filter((o) => o.type === 'table').map((o) => o.name);
  return {
    objects,
    tables: Object.fromEntries(
      tables.map((t) => [
        t,
        {
          columns: db.pragma(`table_xinfo(${t})`),
          foreignKeys: db.pragma(`foreign_key_list(${t})`),
          indexes: (db.pragma(`index_list(${t})`) as { name: string }[]).map((i) => ({
            ...i,
            columns: db.pragma(`index_info(${i.name})`),
          })),
        },
      ]),
    ),
  };
}

describe('an export of rich.aiida', () => {
  let source: Awaited<ReturnType<typeof appOn>>;
  let file: string;
  let db: BetterSqlite3.Database;
  let reference: BetterSqlite3.Database;
  beforeAll(async () => {
    source = await appOn(richFile('rich.aiida'));
    file = await fetchExport(source.app, `/export/?${QUERY}`);
    db = await databaseIn(file);
    reference = await databaseIn(richFile('rich.aiida'));
  });
  afterAll(async () => {
    db?.close();
    reference?.close();
    await source?.close();
  });

  it("has the schema of aiida-core's sqlite_zip database, object for object", () => {
    expect(schemaOf(db)).toEqual(schemaOf(reference));
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables).not.toContainEqual({ name: 'alembic_version' });
    expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it.skipIf(sharedArchive('export_main_0001_simple.aiida') === undefined)(
    "has the tables and columns of aiida-core's own (older) main_0001 test archive",
    async () => {
      const theirs = await databaseIn(sharedArchive('export_main_0001_simple.aiida')!);
      try {
        const ours = schemaOf(db).tables;
        // That archive was converted by aiida-core 2.0.0a1: before db_dbsetting was among the archive's tables and
        // before the columns were made NOT NULL (migration main_0000b), with UUIDs as CHAR(36): the column names,
        // their order and the primary keys are the same.
        const shape = (columns: unknown) =>
          (columns as { name: string; pk: number }[]).map(({ name, pk }) => ({ name, pk }));
        for (const [table, theirsTable] of Object.entries(schemaOf(theirs).tables))
          expect({ table, columns: shape(ours[table]?.columns) }).toEqual({
            table,
            columns: shape(theirsTable.columns),
          });
      } finally {
        theirs.close();
      }
    },
  );

  it('says in metadata.json what it is and how it was made', async () => {
    const metadata = JSON.parse((await zipEntries(file)).get('metadata.json')!.toString('utf8'));
    expect(metadata).toMatchObject({ export_version: 'main_0001', key_format: 'sha256', compression: 6 });
    expect(metadata.creation_parameters).toEqual({
      entities_starting_set: { group: GROUPS, node: [CALCJOB] },
      include_authinfos: false,
      include_comments: true,
      include_logs: true,
      graph_traversal_rules: {
        input_calc_forward: false,
        input_calc_backward: true,
        create_forward: true,
        create_backward: true,
        return_forward: true,
        return_backward: false,
        input_work_forward: false,
        input_work_backward: true,
        call_calc_forward: true,
        call_calc_backward: true,
        call_work_forward: true,
        call_work_backward: true,
      },
    });
  });

  it('holds the groups with all their members, and the users, computers, comments and logs of its nodes', () => {
    const ids = (sql: string, d = db) => (d.prepare(sql).all() as { id: number }[]).map((r) => r.id);
    const nodes = ids('SELECT id FROM db_dbnode ORDER BY id');
    const list = nodes.join(',');
    expect(ids('SELECT uuid AS id FROM db_dbgroup ORDER BY id')).toEqual(
      GROUPS.slice().sort().reverse().sort(),
    );
    for (const table of ['db_dbgroup_dbnodes'])
      expect(db.prepare(`SELECT dbgroup_id, dbnode_id FROM ${table} ORDER BY 1, 2`).all()).toEqual(
        reference
          .prepare(
            `SELECT dbgroup_id, dbnode_id FROM ${table} WHERE dbgroup_id IN (SELECT id FROM db_dbgroup WHERE uuid IN (?, ?)) ORDER BY 1, 2`,
          )
          .all(...GROUPS),
      );
    expect(ids('SELECT id FROM db_dbcomment ORDER BY id')).toEqual(
      ids(`SELECT id FROM db_dbcomment WHERE dbnode_id IN (${list}) ORDER BY id`, reference),
    );
    expect(ids('SELECT id FROM db_dblog ORDER BY id')).toEqual(
      ids(`SELECT id FROM db_dblog WHERE dbnode_id IN (${list}) ORDER BY id`, reference),
    );
    expect(ids('SELECT id FROM db_dbcomputer ORDER BY id')).toEqual(
      ids(
        `SELECT DISTINCT dbcomputer_id AS id FROM db_dbnode WHERE id IN (${list}) AND dbcomputer_id IS NOT NULL ORDER BY 1`,
        reference,
      ),
    );
    expect(ids('SELECT id FROM db_dbuser ORDER BY id')).toEqual(
      ids(
        `SELECT user_id AS id FROM db_dbnode WHERE id IN (${list}) UNION SELECT user_id FROM db_dbcomment WHERE dbnode_id IN (${list}) UNION SELECT user_id FROM db_dbgroup WHERE uuid IN ('${GROUPS.join("','")}') ORDER BY 1`,
        reference,
      ),
    );
    // The rows themselves are the source's, column for column (process nodes' checkpoints aside: none here).
    expect(db.prepare(`SELECT * FROM db_dbnode ORDER BY id`).all()).toEqual(
      reference.prepare(`SELECT * FROM db_dbnode WHERE id IN (${list}) ORDER BY id`).all(),
    );
  });

  it('holds every repository file of its nodes under repo/, named by the sha256 of its bytes', async () => {
    const entries = await zipEntries(file);
    const keys = new Set<string>();
    const walk = (entry: { k?: string; o?: Record<string, unknown> }) => {
      if (entry.k !== undefined) keys.add(entry.k);
      for (const child of Object.values(entry.o ?? {})) walk(child as typeof entry);
    };
    for (const { repository_metadata } of db.prepare('SELECT repository_metadata FROM db_dbnode').all() as {
      repository_metadata: string;
    }[])
      walk(JSON.parse(repository_metadata));
    expect(keys.size).toBeGreaterThan(5);
    const repo = [...entries.keys()].filter((n) => n.startsWith('repo/')).map((n) => n.slice(5));
    expect(repo.sort()).toEqual([...keys].sort());
    for (const key of keys)
      expect(
        createHash('sha256')
          .update(entries.get(`repo/${key}`)!)
          .digest('hex'),
      ).toBe(key);
  });

  it('answers as the source does about every node it holds (links: those inside it)', async () => {
    const exported = await appOn(file);
    try {
      const uuidsOf = (d: BetterSqlite3.Database) =>
        new Set((d.prepare('SELECT uuid FROM db_dbnode').all() as { uuid: string }[]).map((r) => r.uuid));
      const inside = uuidsOf(db);
      const { compared, links } = await sameAnswers(source.app, exported.app, inside, uuidsOf(reference));
      expect(compared).toBeGreaterThan(inside.size * 8);
      expect(links).toBeGreaterThan(10);
    } finally {
      await exported.close();
    }
  });
});
