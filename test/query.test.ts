import BetterSqlite3 from 'better-sqlite3';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import {
  compileQuery,
  countQuery,
  parseQueryDict,
  prepareQuery,
  QueryValidationError,
  runQuery,
} from '../src/query/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { openArchive } from '../src/storage/index.js';
import { Rng } from '../src/generate/prng.js';
import { smallArchive, tempDir } from './helpers.js';

const node = (tag: string, entityType = '') => ({ entity_type: entityType, orm_base: 'node', tag });

describe('query compiler', () => {
  it('binds every value as a parameter, but a LIKE pattern, written in as quoted text on SQLite', () => {
    const dict = {
      path: [node('n', 'data.core.dict.Dict.')],
      filters: { n: { label: { like: "x'; DROP TABLE db_dbnode; --" }, 'attributes.a.b': { '>': 3 } } },
      project: { n: ['id', 'attributes.a.b'] },
      order_by: [{ n: [{ ctime: { order: 'desc' } }] }],
      limit: 5,
    };
    const sqlite = compileQuery(parseQueryDict(dict), 'sqlite').select;
    expect(sqlite.sql).toContain(`"label" LIKE 'x''; DROP TABLE db_dbnode; --' ESCAPE`);
    expect(sqlite.sql).toContain(`"node_type" LIKE 'data.core.dict.%' ESCAPE`);
    expect(sqlite.params).toContain('$."a"."b"');
    expect(sqlite.params).not.toContain("x'; DROP TABLE db_dbnode; --");
    expect(sqlite.sql).toMatch(/ORDER BY "t0"."ctime" DESC LIMIT 5$/);
    const postgres = compileQuery(parseQueryDict(dict), 'postgres').select;
    expect(postgres.sql).not.toContain('DROP');
    expect(postgres.sql).not.toContain('data.core');
    expect(postgres.params).toContain("x'; DROP TABLE db_dbnode; --");
    expect(postgres.params).toContain('data.core.dict.%');
  });

  it('refuses malformed dictionaries naming the offending part', () => {
    const bad = (input: unknown, pattern: RegExp) => {
      expect(() => parseQueryDict(input)).toThrow(QueryValidationError);
      expect(() => parseQueryDict(input)).toThrow(pattern);
    };
    bad([1, 2], /JSON object/);
    bad({}, /path/);
    bad({ path: [node('n')], surprise: 1 }, /surprise: unknown key/);
    bad({ path: [node('n')], filters: { m: {} } }, /filters\.m: unknown tag/);
    bad({ path: [node('n')], filters: { n: { id: { '~': 1 } } } }, /unknown operator "~"/);
    bad({ path: [node('n')], project: { n: ['nope'] } }, /"nope" is not a column/);
    bad(
      { path: [node('n'), { ...node('m'), joining_keyword: 'with_friend', joining_value: 'n' }] },
      /unknown relationship/,
    );
    bad({ path: [node('n')], filters: { n: { id: { in: 3 } } } }, /takes a list/);
    bad({ path: [{ entity_type: 'data.core.int.Int.', orm_base: 'spaceship', tag: 'n' }] }, /orm_base/);
    bad({ path: [node('n')], limit: -1 }, /limit/);
  });

  it('drops the match-everything type filter of all nodes, so counts can use an index', () => {
    const q = parseQueryDict({
      path: [node('n')],
      filters: { n: { node_type: { like: '%' } } },
      project: { n: ['id'] },
    });
    const { select, count } = compileQuery(q, 'sqlite');
    expect(select.sql).not.toContain('WHERE');
    expect(count.sql).not.toContain('WHERE');
    const nullable = parseQueryDict({ path: [node('n')], filters: { n: { process_type: { like: '%' } } } });
    expect(compileQuery(nullable, 'sqlite').select.sql).toMatch(/NOT \("t0"."process_type" IS NULL\)/);
  });

  it('accepts the keys newer as_dict() versions write', () => {
    expect(() => parseQueryDict({ path: [node('n')], project_map: {} })).not.toThrow();
  });
});

describe('SQL the databases accept, whatever the dictionary', () => {
  // The smallest node table the compiled statements read: its id and a JSON column.
  const db = new BetterSqlite3(':memory:');
  db.exec('CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, extras TEXT)');
  const keys = ['odd\\', 'qu"ote', 'a\\b', '\\', 'é', 'x y', "it's"];
  db.prepare('INSERT INTO db_dbnode VALUES (1, ?), (2, ?)').run(
    JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, i + 10]))),
    '{}',
  );
  const ids = (dict: unknown, on = db) => {
    const { select } = compileQuery(parseQueryDict(dict), 'sqlite');
    return on
      .prepare(select.sql)
      .raw()
      .all(...(select.params as unknown[]))
      .map((row) => (row as unknown[])[0]);
  };

  it('finds JSON keys holding backslashes, quotes and other characters a path must escape', () => {
    keys.forEach((key, i) => {
      expect(
        ids({ path: [node('n')], filters: { n: { [`extras.${key}`]: i + 10 } }, project: { n: ['id'] } }),
      ).toEqual([1]);
      expect(
        ids({ path: [node('n')], project: { n: [`extras.${key}`] }, order_by: [{ n: ['id'] }] }),
      ).toEqual([String(i + 10), null]);
    });
  });

  it('matches a LIKE pattern written into the SQL as the same pattern bound would', () => {
    const labelled = new BetterSqlite3(':memory:');
    labelled.exec('CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, label TEXT)');
    const labels = ["it's", "o''k", 'back\\slash', '100%', 'é', "'; --"];
    const insert = labelled.prepare('INSERT INTO db_dbnode VALUES (?, ?)');
    labels.forEach((label, i) => insert.run(i + 1, label));
    const bound = labelled
      .prepare("SELECT id FROM db_dbnode WHERE label LIKE ? ESCAPE '\\' ORDER BY id")
      .raw();
    const patterns = ["it's", "%''%", "%'%", 'back\\\\%', '100\\%', '100%', 'é', '%; --', '%', '_'];
    for (const like of patterns) {
      const expected = bound.all(like).map((row) => (row as unknown[])[0]);
      const dict = { path: [node('n')], filters: { n: { label: { like } } }, project: { n: ['id'] } };
      expect(ids({ ...dict, order_by: [{ n: ['id'] }] }, labelled), like).toEqual(expected);
    }
    const like = (pattern: string) =>
      ids(
        { path: [node('n')], filters: { n: { label: { like: pattern } } }, project: { n: ['id'] } },
        labelled,
      );
    expect(like("%'%")).toEqual([1, 2, 6]);
    expect(like("%''%")).toEqual([2]);
    expect(like('100\\%')).toEqual([4]);
    labelled.close();
  });

  it("writes long AND/OR lists as balanced groups, under SQLite's expression depth of 1000", () => {
    const or = Array.from({ length: 5000 }, (_, i) => ({ id: i + 2 }));
    expect(ids({ path: [node('n')], filters: { n: { or } }, project: { n: ['id'] } })).toEqual([2]);
    const and = Array.from({ length: 3000 }, (_, i) => ({ id: { '<': i + 2 } }));
    expect(ids({ path: [node('n')], filters: { n: { and } }, project: { n: ['id'] } })).toEqual([1]);
  });

  it('refuses a statement with more bound values than SQLite takes, naming the limit', () => {
    const lists = Object.fromEntries(
      ['id', 'user_id', 'dbcomputer_id', 'label'].map((c) => [
        c,
        { in: Array.from({ length: 9000 }, (_, j) => j) },
      ]),
    );
    expect(() =>
      compileQuery(parseQueryDict({ path: [node('n')], filters: { n: lists } }), 'sqlite'),
    ).toThrow(/needs 36\d{3} bound values .*at most 32766/);
  });
});

describe('query engine on a generated archive', () => {
  let b: StorageBackend;
  beforeAll(async () => {
    b = await openArchive(await smallArchive(600, 11), { cacheDir: tempDir() });
  });
  afterAll(async () => b.close());

  it('follows links, group membership and ancestry', async () => {
    const run = (d: unknown) => runQuery(b.db, prepareQuery(d, 'sqlite'));
    const calcs = await run({
      path: [
        node('c', 'process.calculation.calcjob.CalcJobNode.'),
        { ...node('o'), joining_keyword: 'with_incoming', joining_value: 'c', edge_tag: 'e' },
      ],
      filters: { e: { label: 'retrieved' } },
      project: { c: ['id'], o: ['node_type'], e: ['type'] },
    });
    expect(calcs.length).toBeGreaterThan(0);
    for (const row of calcs) {
      expect(row.o!.node_type).toBe('data.core.folder.FolderData.');
      expect(row.e!.type).toBe('create');
    }
    const members = await run({
      path: [
        { entity_type: 'group.core', orm_base: 'group', tag: 'g' },
        { ...node('n'), joining_keyword: 'with_group', joining_value: 'g' },
      ],
      filters: { g: { label: 'structures/all' } },
      project: { n: ['node_type'] },
    });
    expect(new Set(members.map((r) => r.n!.node_type))).toEqual(
      new Set(['data.core.structure.StructureData.']),
    );
    const descendants = await run({
      path: [
        node('s', 'data.core.structure.StructureData.'),
        { ...node('d'), joining_keyword: 'with_ancestors', joining_value: 's' },
      ],
      project: { d: ['node_type'] },
      limit: 50,
    });
    expect(descendants.some((r) => r.d!.node_type === 'process.calculation.calcjob.CalcJobNode.')).toBe(true);
  });

  it('counts what it returns, and pages concatenate to the whole (random dictionaries)', async () => {
    const rng = new Rng(5);
    const types = [
      '',
      'data.core.dict.Dict.',
      'process.calculation.calcjob.CalcJobNode.',
      'data.core.int.Int.',
      'data.',
    ];
    for (let i = 0; i < 40; i++) {
      const filters: Record<string, unknown> = {};
      if (rng.chance(0.5)) filters.id = { [rng.pick(['>', '<', '>=', '<='])]: rng.int(1, 600) };
      if (rng.chance(0.3)) filters.label = { like: rng.pick(['%', 'x', 'scf%', '%a%']) };
      if (rng.chance(0.3)) filters['attributes.value'] = { '>': rng.int(0, 50) };
      const entity = rng.pick(types);
      const base = {
        path: [node('n', entity === 'data.' ? 'data.Data.' : entity)],
        filters: { n: filters },
        project: { n: ['id', 'uuid'] },
        order_by: [{ n: [{ id: { order: rng.pick(['asc', 'desc']) } }] }],
      };
      const all = await runQuery(b.db, prepareQuery(base, 'sqlite'));
      expect(await countQuery(b.db, prepareQuery(base, 'sqlite'))).toBe(all.length);
      const size = rng.int(1, 50);
      const pages = [];
      for (let offset = 0; offset < all.length; offset += size) {
        pages.push(...(await runQuery(b.db, prepareQuery({ ...base, limit: size, offset }, 'sqlite'))));
      }
      expect(pages).toEqual(all);
    }
  });

  it("answers the same rows when told to read in order instead of through the filters' indexes", async () => {
    const dict = {
      path: [node('p')],
      filters: { p: { node_type: { like: 'process.%' }, process_type: { like: '%' } } },
      project: { p: ['id', 'ctime'] },
      order_by: [{ p: [{ ctime: { order: 'desc' } }, { id: { order: 'asc' } }] }],
    };
    const q = parseQueryDict(dict);
    expect(compileQuery(q, 'sqlite', { orderedScan: true }).select.sql).toContain('+"t0"."node_type"');
    expect(compileQuery(q, 'sqlite').select.sql).not.toContain('+"t0"');
    for (const offset of [0, 20, 60]) {
      const window = { ...dict, limit: 20, offset };
      const ordered = await runQuery(b.db, prepareQuery(window, 'sqlite', undefined, { orderedScan: true }));
      expect(ordered.length).toBeGreaterThan(0);
      expect(ordered).toEqual(await runQuery(b.db, prepareQuery(window, 'sqlite')));
    }
  });
});
