/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * OPTIMADE on every kind of source: a generated archive, the rich data as a core.sqlite_dos profile and as a
 * PostgreSQL (core.psql_dos) database. Live sources give the same entries as the archive of the same data, and
 * their side table follows a write; an archive's side table is built once, in the cache folder only.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openPostgresUrl, openSqliteDos } from '../src/storage/profiles.js';
import { openArchive } from '../src/storage/index.js';
import { OptimadeError } from '../src/optimade/errors.js';
import { SideTables } from '../src/optimade/tables.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import type { StorageBackend } from '../src/storage/types.js';
import { FIXTURES_DIR } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';
import { allEntries, optimadeApp } from './optimade-support.js';
import { sqliteDosFolder, unpackContainer } from './support/profile-fixtures.js';
import { httpGet } from './support/http-get.js';

const DATA = join(FIXTURES_DIR, 'data');
const RICH = join(DATA, 'rich.aiida');
const DUMP = join(DATA, 'rich-psql.sql.gz');
const hashOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a generated archive', () => {
  let file: string;
  beforeAll(async () => {
    file = await smallArchive(600, 11);
  }, 60_000);

  it('serves its structures, builds the side table once in the cache folder and never writes the archive', async () => {
    const before = { hash: hashOf(file), mtime: statSync(file).mtimeMs };
    const served = await optimadeApp(file);
    try {
      const v4 = await served.get('/api/v4/nodes?node_type="data.core.structure.StructureData."&limit=1');
      const count = Number(v4.headers['x-total-count']);
      expect(count).toBeGreaterThan(5);
      const cifs = await served.get('/api/v4/nodes?node_type="data.core.cif.CifData."&limit=1');
      const entries = await allEntries(served.get, 'page_limit=50');
      // Every StructureData, and the CifData whose files read into sites (the generated ones do).
      expect(entries).toHaveLength(count + Number(cifs.headers['x-total-count']));
      const some = entries[0].attributes;
      const match = (
        await served.get(
          `/optimade/v1/structures?filter=${encodeURIComponent(`chemical_formula_reduced="${some.chemical_formula_reduced}" AND nsites=${some.nsites}`)}`,
        )
      ).json();
      expect(match.data.map((e: any) => e.id)).toContain(entries[0].id);

      // An answer that needs the space groups waits for the table's symmetry pass, which writes the file anew
      // when done: after it, the table is as the next server finds it.
      const grouped = await served.get(
        '/optimade/v1/structures?page_limit=1&response_fields=space_group_it_number',
      );
      expect(grouped.status).toBe(200);
      const tables = readdirSync(join(served.cacheDir, 'optimade'));
      expect(tables.filter((f) => f.endsWith('.sqlite3'))).toHaveLength(1);
      const table = join(
        served.cacheDir,
        'optimade',
        tables.find((f) => f.endsWith('.sqlite3'))!,
      );
      const built = statSync(table).mtimeMs;

      // Another server on the same archive and cache folder uses the table as it is.
      const backend2 = await (
        await import('../src/storage/index.js')
      ).openArchive(file, { cacheDir: served.cacheDir });
      const app2 = await buildApp({ backends: [backend2], ui: false });
      try {
        const again = await app2.inject('/optimade/v1/structures?page_limit=1');
        expect(again.json().meta.data_returned).toBe(entries.length);
        expect(statSync(table).mtimeMs).toBe(built);
      } finally {
        await app2.close();
        await backend2.close();
      }
    } finally {
      await served.close();
    }
    expect({ hash: hashOf(file), mtime: statSync(file).mtimeMs }).toEqual(before);
  });
});

/** Entries of a live source must be those of the archive of the same data, but for the links' host. */
async function sameAsArchive(backend: StorageBackend, archiveEntries: any[]) {
  const app = await buildApp({ backends: [backend], ui: false });
  try {
    const get = async (url: string) => {
      const r = await app.inject(url);
      return { status: r.statusCode, json: () => r.json() };
    };
    const entries = await allEntries(get, 'page_limit=500');
    expect(entries).toEqual(archiveEntries);
    return { app, get };
  } catch (error) {
    await app.close();
    throw error;
  }
}

describe('live profiles of the rich data', () => {
  let archiveEntries: any[];
  let root: string;
  const opened: { close(): Promise<unknown> }[] = [];
  beforeAll(async () => {
    root = tempDir('quarry-optimade-live-');
    const served = await optimadeApp(RICH);
    try {
      archiveEntries = await allEntries(served.get, 'page_limit=500');
    } finally {
      await served.close();
    }
  }, 60_000);
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
  });

  it('core.sqlite_dos: the same entries, and a renamed structure is found by its new label after the write', async () => {
    const folder = await sqliteDosFolder(RICH, join(DATA, 'rich-container-packed.tar.gz'), root);
    // A structure whose attributes AiiDA could not have written is left out, not allowed to stop the table.
    const broken = new BetterSqlite3(join(folder, 'database.sqlite'));
    broken
      .prepare(
        `INSERT INTO db_dbnode (uuid, node_type, label, description, ctime, mtime, attributes, extras, repository_metadata, user_id)
         SELECT '0c0c0c0c-0000-4000-8000-000000000002', 'data.core.structure.StructureData.', 'broken', '', ctime, mtime,
           '{"kinds": [{"name": "X"}], "sites": [{"kind_name": "X", "position": [0, 0, 0]}]}', '{}', '{}', user_id
         FROM db_dbnode LIMIT 1`,
      )
      .run();
    broken.close();
    const backend = await openSqliteDos(folder, { name: 'rich-live', cacheDir: join(root, 'cache-sqlite') });
    opened.push(backend);
    const { app, get } = await sameAsArchive(backend, archiveEntries);
    opened.unshift(app);
    const target = archiveEntries[5];
    const filter = (label: string) =>
      `/optimade/v1/structures?filter=${encodeURIComponent(`_quarry_label="${label}"`)}`;
    expect((await get(filter('renamed by AiiDA'))).json().data).toEqual([]);
    // Answers carry a weak tag of the data version once the table's space groups are found (its symmetry pass
    // runs in a thread started for it, which the listing above does not wait for): asked again with it, a 304.
    const one = `/optimade/v1/structures/${target.id}`;
    expect((await get(`${one}?response_fields=space_group_it_number`)).status).toBe(200);
    const tagged = await app.inject(one);
    const tag = tagged.headers.etag as string;
    expect(tag).toMatch(/^W\/"[\w-]+"$/);
    expect(tagged.headers['cache-control']).toBe('no-cache');
    const held = await app.inject({ url: one, headers: { 'if-none-match': tag } });
    expect(held.statusCode).toBe(304);
    expect(held.body).toBe('');
    expect(held.headers.etag).toBe(tag);

    const writer = new BetterSqlite3(join(folder, 'database.sqlite'));
    writer
      .prepare(
        "UPDATE db_dbnode SET label = 'renamed by AiiDA', mtime = '2030-01-01 00:00:00.000000' WHERE uuid = ?",
      )
      .run(target.id);
    writer.close();
    const after = (await get(filter('renamed by AiiDA'))).json().data;
    expect(after.map((e: any) => e.id)).toEqual([target.id]);
    expect(after[0].attributes.last_modified).toBe('2030-01-01T00:00:00.000000Z');
    // The data changed: the tag held is no longer the answer's, which comes whole with a new one (once the new
    // table's symmetry pass is over, which an answer that needs the space groups waits for: until then answers
    // are untagged).
    expect((await get(`${one}?response_fields=space_group_it_number`)).status).toBe(200);
    const changed = await app.inject({ url: one, headers: { 'if-none-match': tag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data.attributes._quarry_label).toBe('renamed by AiiDA');
    expect(changed.headers.etag).toMatch(/^W\/"[\w-]+"$/);
    expect(changed.headers.etag).not.toBe(tag);

    // A write to anything but a structure leaves the table as it is: no rebuild per workflow step.
    const dir = join(root, 'cache-sqlite', 'optimade');
    const table = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.sqlite3'))!,
    );
    const built = statSync(table).mtimeMs;
    const other = new BetterSqlite3(join(folder, 'database.sqlite'));
    const changedRows = other
      .prepare(
        "UPDATE db_dbnode SET label = 'busy', mtime = '2031-01-01 00:00:00' WHERE id = (SELECT min(id) FROM db_dbnode WHERE node_type <> 'data.core.structure.StructureData.')",
      )
      .run().changes;
    expect(changedRows).toBe(1);
    other.close();
    expect((await get(filter('renamed by AiiDA'))).json().data.map((e: any) => e.id)).toEqual([target.id]);
    expect(statSync(table).mtimeMs).toBe(built);
  });

  const pgAvailable = withPostgres && existsSync(DUMP);
  it.skipIf(!pgAvailable)(
    'PostgreSQL: the same entries, and a new structure is listed after the insert',
    async () => {
      const cluster: Cluster = await startCluster();
      opened.push({ close: async () => cluster.destroy() });
      cluster.restore('rich', DUMP);
      mkdirSync(join(root, 'pg'));
      const container = await unpackContainer(join(DATA, 'rich-container-loose.tar.gz'), join(root, 'pg'));
      const backend = await openPostgresUrl(cluster.url('rich'), container, {
        name: 'rich',
        cacheDir: join(root, 'cache-pg'),
      });
      opened.push(backend);
      const { app, get } = await sameAsArchive(backend, archiveEntries);
      opened.unshift(app);
      expect(
        readdirSync(join(root, 'cache-pg', 'optimade')).filter((f) => f.endsWith('.sqlite3')),
      ).toHaveLength(1);

      cluster.sql(
        'rich',
        `INSERT INTO db_dbnode (uuid, node_type, label, description, ctime, mtime, attributes, extras,
         repository_metadata, user_id)
       SELECT '0b0b0b0b-0000-4000-8000-000000000001', 'data.core.structure.StructureData.', 'inserted', '',
         now(), now(),
         '{"cell": [[3,0,0],[0,3,0],[0,0,3]], "pbc1": true, "pbc2": true, "pbc3": false,
           "kinds": [{"name": "Si", "symbols": ["Si"], "weights": [1.0], "mass": 28.085},
                     {"name": "O", "symbols": ["O"], "weights": [1.0], "mass": 15.999}],
           "sites": [{"kind_name": "Si", "position": [0,0,0]}, {"kind_name": "O", "position": [1,1,1]},
                     {"kind_name": "O", "position": [2,2,2]}]}',
         '{}', '{}', min(id) FROM db_dbuser`,
      );
      // A PostgreSQL source asks its data version once a second at most.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const found = (
        await get(
          `/optimade/v1/structures?filter=${encodeURIComponent('elements HAS ALL "Si","O" AND nelements=2 AND nperiodic_dimensions=2')}`,
        )
      ).json();
      expect(found.data.map((e: any) => e.id)).toEqual(['0b0b0b0b-0000-4000-8000-000000000001']);
      expect(found.data[0].attributes).toMatchObject({
        chemical_formula_reduced: 'O2Si',
        chemical_formula_hill: 'O2Si',
        chemical_formula_anonymous: 'A2B',
        dimension_types: [1, 1, 0],
      });
    },
    120_000,
  );
});

describe('a side table being built', () => {
  it('answers 503 with Retry-After until it is ready, without building it twice', async () => {
    const root = tempDir('quarry-optimade-gate-');
    const backend = await openArchive(RICH, { cacheDir: root });
    try {
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let reads = 0;
      const db = Object.create(backend.db, {
        values: {
          value: async (...args: Parameters<typeof backend.db.values>) => {
            reads += 1;
            await gate;
            return backend.db.values(...args);
          },
        },
      });
      const gated = Object.create(backend, { db: { value: db } }) as StorageBackend;
      const tables = new SideTables(() => ({ cacheDir: root }));
      const refusal = await tables.of(gated, Date.now() + 50).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(OptimadeError);
      expect(refusal).toMatchObject({ status: 503, retryAfter: 5 });
      const again = await tables.of(gated, Date.now() + 50).catch((e: unknown) => e);
      expect(again).toMatchObject({ status: 503 });
      expect(reads).toBe(1);
      open();
      const table = await tables.of(gated, Date.now() + 10_000);
      expect(table.count).toBeGreaterThan(50);
      expect(await tables.of(gated, Date.now() + 10_000)).toBe(table);
      await tables.close();
    } finally {
      await backend.close();
    }
  });
});

describe("a side table's time limit", () => {
  it("stops its statements at its source's own query_timeout, as the source's v4 API does", async () => {
    const root = tempDir('quarry-optimade-limit-');
    const backend = await openArchive(RICH, { cacheDir: root });
    const tables = new SideTables((b, queryTimeoutMs) => ({ cacheDir: b.cacheDir ?? root, queryTimeoutMs }));
    try {
      const table = await tables.of(backend, Date.now() + 60_000, 1_500);
      expect((table.db as SqlitePool).statementLimitMs).toBe(1_500);
    } finally {
      await tables.close();
      await backend.close();
    }
  });
});

describe('closing the server', () => {
  it('answers the OPTIMADE requests still running 200 or 503 with Retry-After, never 500', async () => {
    const root = tempDir('quarry-optimade-close-');
    const backend = await openArchive(await smallArchive(600, 11), { cacheDir: root });
    const app = await buildApp({ backends: [backend], ui: false, logger: false });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as { port: number }).port;
      expect((await httpGet(port, '/optimade/v1/structures?page_limit=1')).status).toBe(200);
      // Filters never asked before, each a count and a page of queries, all in flight at the close.
      const running = Array.from({ length: 30 }, (_, k) =>
        httpGet(
          port,
          `/optimade/v1/structures?page_limit=50&filter=${encodeURIComponent(`nsites>${k} OR nelements=${k % 5}`)}`,
        ).catch((error: unknown) => error as Error),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      await Promise.all([app.close(), backend.close()]);
      const answers = await Promise.all(running);
      const statuses = answers.map((a) => (a instanceof Error ? a.message : a.status));
      for (const answer of answers) {
        // A connection the closing server never took is the client's to retry; an answer is 200 or 503.
        if (answer instanceof Error) continue;
        expect([200, 503], JSON.stringify(statuses)).toContain(answer.status);
        if (answer.status === 503) expect(answer.headers['retry-after']).toBeDefined();
      }
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
