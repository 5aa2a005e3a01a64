/**
 * Exports of other sources than the rich archive: generated archives, the rich data as a core.sqlite_dos
 * profile (its all.aiida an export of everything), legacy archives (export versions 0.1 to 0.13, converted
 * into the same SQLite schema at their opening), whose `all.aiida` is an export of everything written once and
 * kept in the cache; and the rich data as a live PostgreSQL profile (psql_dos). Each export has the sqlite_zip
 * schema and, served by Quarry, answers about its nodes as the source does.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { buildApp } from '../src/server/app.js';
import { openPostgresUrl, openSqliteDos } from '../src/storage/profiles.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { appOn, smallArchive, tempDir } from './helpers.js';
import { databaseIn, fetchExport, sameAnswers } from './support/export-files.js';
import { withPostgres } from './support/postgres.js';
import { sqliteDosFolder, unpackContainer } from './support/profile-fixtures.js';

const LEGACY = process.env.QUARRY_LEGACY_DIR ?? '/work/shared/legacy';
const LEGACY_FILES = [
  'export_0.2_simple.tar.gz',
  'export_0.4_simple.aiida',
  'export_0.13_simple.aiida',
  '0.10_unknown_nodes_in_group.aiida',
  '0.10_dangling_link.aiida',
].filter((f) => existsSync(join(LEGACY, f)));

const CALCJOB = '872e983d-1456-47d7-b7f2-4f3f3a976653';

/** Every schema object of a database, DDL and all. */
const objects = (db: BetterSqlite3.Database) =>
  db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();
const uuidsOf = (db: BetterSqlite3.Database) =>
  new Set((db.prepare('SELECT uuid FROM db_dbnode').all() as { uuid: string }[]).map((r) => r.uuid));

let reference: BetterSqlite3.Database;
beforeAll(async () => {
  reference = await databaseIn(richFile('rich.aiida'));
});
afterAll(() => reference?.close());

describe.skipIf(LEGACY_FILES.length === 0)('all.aiida of legacy archives', () => {
  it.each(LEGACY_FILES)('%s: an AiiDA 2.x archive of everything, kept in the cache', async (name) => {
    const source = await appOn(join(LEGACY, name));
    try {
      const file = await fetchExport(source.app, '/export/all.aiida');
      const db = await databaseIn(file);
      const exported = await appOn(file);
      try {
        expect(objects(db)).toEqual(objects(reference));
        expect(db.pragma('foreign_key_check')).toEqual([]);
        const sourceNodes = await nodeUuids(source.app);
        expect(uuidsOf(db)).toEqual(sourceNodes);
        const { compared } = await sameAnswers(source.app, exported.app, uuidsOf(db), sourceNodes);
        expect(compared).toBeGreaterThan(0);
      } finally {
        db.close();
        await exported.close();
      }
      // Written once: the second request is the kept file, with its tag, ranges and 304.
      const dir = join(source.backend.cacheDir!, 'exports');
      expect(readdirSync(dir).filter((f) => f.startsWith('all-'))).toHaveLength(1);
      expect(readdirSync(dir).filter((f) => f.startsWith('tmp-'))).toEqual([]);
      const again = await source.app.inject('/export/all.aiida');
      expect(again.statusCode).toBe(200);
      expect(again.headers['accept-ranges']).toBe('bytes');
      const notModified = await source.app.inject({
        url: '/export/all.aiida',
        headers: { 'if-none-match': String(again.headers.etag) },
      });
      expect(notModified.statusCode).toBe(304);
    } finally {
      await source.close();
    }
  });
});

/** The UUIDs of every node a source serves, through its API. */
async function nodeUuids(app: FastifyInstance): Promise<Set<string>> {
  const r = await app.inject('/api/v4/nodes/?attributes=false&limit=400&orderby=id');
  return new Set((r.json() as { data: { nodes: { uuid: string }[] } }).data.nodes.map((n) => n.uuid));
}

describe.skipIf(!withPostgres)('exports of the rich data as a PostgreSQL profile', () => {
  let cluster: Cluster | undefined;
  let profile: StorageBackend;
  let app: FastifyInstance;
  let archive: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    cluster = await startCluster();
    if (!cluster) throw new Error('PostgreSQL is not installed');
    cluster.restore('rich', richFile('rich-psql.sql.gz'));
    const container = await unpackContainer(richFile('rich-container-loose.tar.gz'), tempDir());
    profile = await openPostgresUrl(cluster.url('rich'), container, {
      name: 'rich',
      cacheDir: tempDir('quarry-cache-'),
    });
    app = await buildApp({ backends: [profile] });
    archive = await appOn(richFile('rich.aiida'));
  });
  afterAll(async () => {
    await app?.close();
    await profile?.close();
    await archive?.close();
    cluster?.destroy();
  });

  it('writes the same nodes and links as an export of the archive, and answers as the profile does', async () => {
    const query = `/export/?nodes=${CALCJOB}&groups=7968402c-153d-4d6e-8023-2fe9d9e4b8d4`;
    const fromProfile = await databaseIn(await fetchExport(app, query));
    const fromArchive = await databaseIn(await fetchExport(archive.app, query));
    try {
      expect(objects(fromProfile)).toEqual(objects(reference));
      const rows = (db: BetterSqlite3.Database, sql: string) => db.prepare(sql).all();
      for (const sql of [
        'SELECT id, uuid, node_type, process_type, label, description, ctime, mtime, dbcomputer_id, user_id FROM db_dbnode ORDER BY id',
        'SELECT input_id, output_id, label, type FROM db_dblink ORDER BY 1, 2, 3',
        'SELECT dbgroup_id, dbnode_id FROM db_dbgroup_dbnodes ORDER BY 1, 2',
        'SELECT uuid, label, type_string, time, description FROM db_dbgroup ORDER BY uuid',
        'SELECT email, first_name, last_name, institution FROM db_dbuser ORDER BY email',
        'SELECT uuid, label, hostname FROM db_dbcomputer ORDER BY uuid',
        'SELECT uuid, dbnode_id, ctime, content FROM db_dbcomment ORDER BY uuid',
        'SELECT uuid, dbnode_id, time, levelname, message FROM db_dblog ORDER BY uuid',
      ])
        expect({ sql, rows: rows(fromProfile, sql) }).toEqual({ sql, rows: rows(fromArchive, sql) });
      // JSON columns: the same values (PostgreSQL's JSONB writes its keys in an order of its own).
      const json = (db: BetterSqlite3.Database) =>
        (
          db
            .prepare('SELECT uuid, attributes, extras, repository_metadata FROM db_dbnode ORDER BY uuid')
            .all() as Record<string, string>[]
        ).map((r) => [
          r.uuid,
          JSON.parse(r.attributes!),
          JSON.parse(r.extras!),
          JSON.parse(r.repository_metadata!),
        ]);
      expect(json(fromProfile)).toEqual(json(fromArchive));
    } finally {
      fromArchive.close();
    }
    const file = await fetchExport(app, query);
    const exported = await appOn(file);
    try {
      const { compared } = await sameAnswers(app, exported.app, uuidsOf(fromProfile), uuidsOf(reference));
      expect(compared).toBeGreaterThan(100);
    } finally {
      fromProfile.close();
      await exported.close();
    }
  });
});

describe('exports of a generated archive and of a core.sqlite_dos profile', () => {
  it('a generated archive: every calculation of the latest with its provenance, schema and answers as the source', async () => {
    const source = await appOn(await smallArchive(600, 11));
    try {
      const calcs = await source.app.inject(
        '/api/v4/nodes/?node_type=like="process.calculation%25"&orderby=-id&limit=20&attributes=false',
      );
      const uuids = (calcs.json() as { data: { nodes: { uuid: string }[] } }).data.nodes.map((n) => n.uuid);
      expect(uuids.length).toBeGreaterThan(5);
      const file = await fetchExport(source.app, `/export/?nodes=${uuids.join(',')}`);
      const db = await databaseIn(file);
      const exported = await appOn(file);
      try {
        expect(objects(db)).toEqual(objects(reference));
        expect(db.pragma('foreign_key_check')).toEqual([]);
        const { compared } = await sameAnswers(
          source.app,
          exported.app,
          uuidsOf(db),
          await allNodeUuids(source.app),
        );
        expect(compared).toBeGreaterThan(uuids.length * 5);
      } finally {
        db.close();
        await exported.close();
      }
    } finally {
      await source.close();
    }
  });

  it('the rich data as core.sqlite_dos: its whole export holds every node and answers as the profile does', async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    const profile = await openSqliteDos(folder, { name: 'rich', cacheDir: tempDir('quarry-cache-') });
    const app = await buildApp({ backends: [profile] });
    try {
      const file = await fetchExport(app, '/export/all.aiida');
      const db = await databaseIn(file);
      const exported = await appOn(file);
      try {
        expect(objects(db)).toEqual(objects(reference));
        expect(uuidsOf(db)).toEqual(uuidsOf(reference));
        const count = (d: BetterSqlite3.Database, table: string) =>
          (d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        for (const table of [
          'db_dblink',
          'db_dbgroup',
          'db_dbgroup_dbnodes',
          'db_dbcomment',
          'db_dblog',
          'db_dbuser',
          'db_dbcomputer',
        ])
          expect({ table, n: count(db, table) }).toEqual({ table, n: count(reference, table) });
        // Every node is inside: every answer about one (the walk's first 400), its links included, is the profile's.
        const { compared, links } = await sameAnswers(app, exported.app, uuidsOf(db), uuidsOf(reference));
        expect(compared).toBeGreaterThan(10 * 400);
        expect(links).toBe(3 * 400); // incoming, outgoing and tree of each: none at a border
      } finally {
        db.close();
        await exported.close();
      }
    } finally {
      await app.close();
      await profile.close();
    }
  }, 240_000);
});

/** Every node UUID a source serves (all pages). */
async function allNodeUuids(app: FastifyInstance): Promise<Set<string>> {
  const out = new Set<string>();
  for (let offset = 0; ; offset += 400) {
    const r = await app.inject(`/api/v4/nodes/?attributes=false&limit=400&offset=${offset}&orderby=id`);
    const nodes = (r.json() as { data: { nodes: { uuid: string }[] } }).data.nodes;
    for (const n of nodes) out.add(n.uuid);
    if (nodes.length < 400) return out;
  }
}
