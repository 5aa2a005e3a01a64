/**
 * The benchmark's PostgreSQL loader: a generated archive copied (COPY FREEZE) into AiiDA's core.psql_dos
 * schema, every row and value intact, with the keys, indexes and foreign keys of a real profile, and served
 * through openPostgres with the same answers as the archive. Needs PostgreSQL (.ci/run installs it); skips
 * without it.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchBackend } from '../src/bench/backend.js';
import { copyText, loadIntoPostgres, type LoadReport } from '../src/bench/pg-load.js';
import { schemaIndexNames } from '../src/bench/pg-schema.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';
import { richFile } from './conformance/corpus.js';

const dump = richFile('rich-psql.sql.gz');

/** Text that COPY's text format must escape, in a label and a description of one node. */
const AWKWARD = 'tab\there, line\nbreak, return\r, back\\slash \\N and \u00e9';

describe.skipIf(!withPostgres)('loading an archive into PostgreSQL for the benchmark', () => {
  let cluster: Cluster;
  let archive: StorageBackend;
  let sqlite: string;
  let report: LoadReport;
  let client: pg.Client;
  let file: string;
  const cacheDir = tempDir('quarry-pgload-');

  beforeAll(async () => {
    file = await smallArchive(600, 11);
    archive = await openArchive(file, { cacheDir });
    // A copy of the archive's database with one node's texts made awkward.
    sqlite = join(tempDir(), 'awkward.sqlite3');
    copyFileSync((archive.db as SqlitePool).file, sqlite);
    const writable = new BetterSqlite3(sqlite);
    writable.prepare('UPDATE db_dbnode SET label = ?, description = ? WHERE id = 5').run(AWKWARD, AWKWARD);
    writable.close();
    cluster = await startCluster();
    cluster.sql('postgres', 'CREATE DATABASE bench');
    report = await loadIntoPostgres(sqlite, cluster.url('bench'));
    client = new pg.Client({ connectionString: cluster.url('bench'), options: '-c TimeZone=UTC' });
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await archive?.close();
    cluster?.destroy();
  });

  it('copies every row of every table, with each value as the archive holds it', async () => {
    const source = new BetterSqlite3(sqlite, { readonly: true });
    try {
      for (const table of ['db_dbnode', 'db_dblink', 'db_dbgroup_dbnodes', 'db_dblog', 'db_dbcomment']) {
        const n = (source.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        expect(report.rows[table], table).toBe(n);
        expect(Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)).toBe(n);
      }
      const want = source
        .prepare(
          'SELECT id, uuid, node_type, process_type, label, description, ctime, attributes, extras FROM db_dbnode ORDER BY id',
        )
        .all() as Record<string, string | number | null>[];
      const got = (
        await client.query(
          "SELECT id, uuid::text AS uuid, node_type, process_type, label, description, to_char(ctime AT TIME ZONE 'UTC', " +
            "'YYYY-MM-DD HH24:MI:SS.US') AS ctime, attributes::text AS attributes, extras::text AS extras FROM db_dbnode ORDER BY id",
        )
      ).rows as Record<string, string | number | null>[];
      expect(got).toHaveLength(want.length);
      const json = (v: unknown) => (v === null ? null : JSON.parse(String(v)));
      want.forEach((w, i) => {
        const g = got[i] as Record<string, unknown>;
        expect({ ...g, attributes: json(g.attributes), extras: json(g.extras) }).toEqual({
          ...w,
          ctime: String(w.ctime).includes('.') ? w.ctime : `${String(w.ctime)}.000000`,
          attributes: json(w.attributes),
          extras: json(w.extras),
        });
      });
      expect(got.find((r) => r.id === 5)?.description).toBe(AWKWARD);
    } finally {
      source.close();
    }
  });

  it("builds exactly the keys and indexes of AiiDA's schema, and its foreign keys", async () => {
    const tables = ['db_dbnode', 'db_dblink', 'db_dbgroup', 'db_dbgroup_dbnodes', 'db_dbcomment', 'db_dblog'];
    const ours = (
      await client.query('SELECT indexname FROM pg_indexes WHERE tablename = ANY($1) ORDER BY indexname', [
        [...tables, 'db_dbuser', 'db_dbcomputer'],
      ])
    ).rows.map((r) => r.indexname as string);
    // A profile made by aiida-core 2.3.1, dumped with pg_dump: the names of its constraints and indexes.
    const text = execFileSync('gzip', ['-dc', dump], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const real = [
      ...[
        ...text.matchAll(/ALTER TABLE ONLY public\.(\w+)\n\s+ADD CONSTRAINT (\w+) (?:PRIMARY KEY|UNIQUE)/g),
      ],
      ...[...text.matchAll(/CREATE INDEX (\w+) ON public\.(\w+)/g)].map((m) => [m[0], m[2], m[1]]),
    ]
      .filter((m) => [...tables, 'db_dbuser', 'db_dbcomputer'].includes(m[1] as string))
      .map((m) => m[2] as string)
      .sort();
    expect(ours).toEqual(real);
    expect([...schemaIndexNames()].sort()).toEqual(real);
    const foreign = (
      await client.query(
        "SELECT conname FROM pg_constraint WHERE contype = 'f' AND convalidated ORDER BY conname",
      )
    ).rows.map((r) => r.conname as string);
    const realForeign = [...text.matchAll(/ADD CONSTRAINT (\w+) FOREIGN KEY/g)]
      .map((m) => m[1] as string)
      .filter((name) => !name.includes('authinfo'))
      .sort();
    expect(foreign).toEqual(realForeign);
  });

  it('leaves the tables frozen and all-visible, so index-only scans skip the heap at once', async () => {
    const { rows } = await client.query(
      "SELECT relpages, relallvisible FROM pg_class WHERE relname IN ('db_dbnode', 'db_dblink')",
    );
    for (const r of rows) {
      expect(r.relpages).toBeGreaterThan(0);
      expect(r.relallvisible).toBe(r.relpages);
    }
    expect(report.databaseBytes).toBeGreaterThan(0);
  });

  it('is served through openPostgres with the same answers as the archive', async () => {
    const profile = await benchBackend(file, cluster.url('bench'), { cacheDir });
    const onPostgres = await buildApp({ backends: [profile] });
    const onArchive = await buildApp({ backends: [archive] });
    try {
      expect(profile.kind).toBe('postgres-profile');
      expect(profile.aiidaVersion).toMatch(/main_0001/);
      for (const url of [
        '/api/v4/nodes/statistics/',
        '/api/v4/nodes/full_types_count/',
        '/api/v4/nodes/page/1/?perpage=20&orderby=-ctime',
        '/api/v4/nodes/page/2/?perpage=20&orderby=-ctime&full_type="data.core.structure.StructureData.|"',
        '/api/v4/nodes/?orderby=id&limit=5&offset=10',
      ]) {
        const [a, p] = await Promise.all([onArchive.inject(url), onPostgres.inject(url)]);
        expect(p.statusCode, url).toBe(200);
        expect(p.headers['x-total-count'], url).toBe(a.headers['x-total-count']);
        expect(p.json(), url).toEqual(a.json());
      }
    } finally {
      await onPostgres.close();
      await onArchive.close();
      await profile.close();
    }
  });

  it('writes COPY text escapes for the separators and NULL, numbers as they are', () => {
    expect(copyText(null)).toBe('\\N');
    expect(copyText(42)).toBe('42');
    expect(copyText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyText('plain')).toBe('plain');
    expect(() => copyText({})).toThrow(/cannot COPY/);
  });
});
