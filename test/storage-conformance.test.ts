/**
 * The archive backend on the real archives of the conformance corpus: every archive opens, its database
 * is the archive's own, and every file the database refers to is served with the content its key names.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creationStatistics, typeCounts } from '../src/storage/aggregates.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { databaseOf, readAll, repositoryKeys, sha256, tempDir } from './storage-fixtures.js';
import { richFile, SHARED_ARCHIVES, sharedArchive } from './conformance/corpus.js';

/** The rich archive (in the repository) and aiida-core's test archives where ../shared has them. */
const archives = new Map<string, string>([['rich.aiida', richFile('rich.aiida')]]);
for (const name of SHARED_ARCHIVES) {
  const file = sharedArchive(`${name}.aiida`);
  if (file !== undefined) archives.set(`${name}.aiida`, file);
}

describe('conformance archives', () => {
  describe.each([...archives.keys()])('%s', (name) => {
    const file = archives.get(name) as string;
    let backend: StorageBackend;
    let cacheDir: string;
    beforeAll(async () => {
      cacheDir = tempDir();
      backend = await openArchive(file, { cacheDir });
    });
    afterAll(async () => backend?.close());

    it('opens with the archive name and the AiiDA version of its metadata', async () => {
      expect(backend.name).toBe(name.replace(/\.aiida$/, ''));
      expect(backend.aiidaVersion).toMatch(/^\d+\.\d+\.\d+/);
    });

    it("serves the archive's own data: the same rows in every table, with only Quarry's index, table of the types in creation order, planner statistics and summaries added", async () => {
      const direct = join(tempDir(), 'db.sqlite3');
      writeFileSync(direct, await databaseOf(file));
      const [cached] = readdirSync(join(cacheDir, 'archives')).filter((n) => n.endsWith('.sqlite3'));
      const original = new BetterSqlite3(direct, { readonly: true });
      const copy = new BetterSqlite3(join(cacheDir, 'archives', cached!), { readonly: true });
      try {
        const schema = (db: BetterSqlite3.Database) =>
          db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() as { name: string }[];
        const added = schema(copy).filter((o) => !schema(original).some((p) => p.name === o.name));
        // SQLite's statistics tables: of the node-type index, for the planner.
        expect(added.map((o) => o.name)).toEqual([
          'quarry_ctime_desc_id',
          'quarry_node_type_ctime',
          'quarry_summaries',
          'sqlite_stat1',
          'sqlite_stat4',
        ]);
        for (const { name } of schema(original).filter((o) => (o as { type?: string }).type === 'table')) {
          const rows = (db: BetterSqlite3.Database) =>
            sha256(
              Buffer.from(JSON.stringify(db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw().all())),
            );
          expect(rows(copy), name).toBe(rows(original));
        }
        const nodes = original.prepare('SELECT count(*) AS n FROM db_dbnode').get() as { n: number };
        expect(nodes.n).toBeGreaterThan(0);
        expect(await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] })).toEqual([
          nodes,
        ]);
      } finally {
        original.close();
        copy.close();
      }
    });

    it('keeps the summaries of the whole database that a scan of it gives', async () => {
      expect(await backend.keptSummary?.('creationStatistics')).toBe(
        JSON.stringify(await creationStatistics(backend.db)),
      );
      expect(await backend.keptSummary?.('typeCounts')).toBe(JSON.stringify(await typeCounts(backend.db)));
    });

    it('serves every repository file the nodes refer to, with the content its key names', async () => {
      const rows = await backend.db.all({
        sql: 'SELECT repository_metadata AS m FROM db_dbnode WHERE repository_metadata IS NOT NULL',
        params: [],
      });
      const keys = repositoryKeys(rows.map((r) => r.m as string));
      expect(keys.size).toBeGreaterThan(0);
      for (const key of keys) {
        const object = await backend.repository.get(key);
        expect(object, `repo/${key}`).toBeDefined();
        const data = await readAll(await object!.stream());
        expect(data.length).toBe(object!.size);
        expect(sha256(data)).toBe(key);
      }
    });
  });

  describe('rich.aiida', () => {
    it('holds as many nodes as its summary says, and answers 200 parallel reads and queries', async () => {
      const summary = readFileSync(richFile('rich-summary.txt'), 'utf8');
      const total = Number(/^total nodes (\d+)$/m.exec(summary)?.[1]);
      const backend = await openArchive(richFile('rich.aiida'), { cacheDir: tempDir() });
      try {
        const [{ n }] = (await backend.db.all({
          sql: 'SELECT count(*) AS n FROM db_dbnode',
          params: [],
        })) as [{ n: number }];
        expect(n).toBe(total);
        const rows = await backend.db.all({
          sql: 'SELECT id, repository_metadata AS m FROM db_dbnode WHERE repository_metadata LIKE ?',
          params: ['%"k"%'],
        });
        const keys = [...repositoryKeys(rows.map((r) => r.m as string))];
        expect(keys.length).toBeGreaterThan(100);
        const results = await Promise.all(
          Array.from({ length: 200 }, async (_, i) => {
            const key = keys[(i * 37) % keys.length]!;
            const [object, nodes] = await Promise.all([
              backend.repository.get(key),
              backend.db.all({
                sql: 'SELECT id FROM db_dbnode WHERE id = ?',
                params: [rows[i % rows.length]!.id],
              }),
            ]);
            const data = await readAll(await object!.stream());
            return sha256(data) === key && nodes.length === 1;
          }),
        );
        expect(results.filter((ok) => !ok)).toEqual([]);
      } finally {
        await backend.close();
      }
    });
  });
});
