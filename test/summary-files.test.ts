/**
 * A live database's summaries outlast a restart of Quarry: a run keeps them on disk under the data version
 * they were computed at, and the next run on the same unchanged database answers them without a pass over the
 * nodes; after a write, or from a file that is not whole, they are computed again (a throw-away cluster with the
 * recorded rich dump).
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { statisticsJson, typeCountsOf, warmSummaries } from '../src/rest/node-summaries.js';
import { openPostgresUrl } from '../src/storage/profiles.js';
import type { Database, StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { cli, serveProcesses, until } from './support/serving.js';
import { tempDir } from './support/temp.js';

const dump = richFile('rich-psql.sql.gz');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The storage with its statements that read the nodes counted: a summary computed reads every node. */
function counted(backend: StorageBackend) {
  const reads: string[] = [];
  const db = backend.db;
  const count = (sql: string) => {
    if (/db_dbnode/.test(sql)) reads.push(sql);
  };
  const view = Object.create(db, {
    all: { value: (s: Parameters<Database['all']>[0]) => (count(s.sql), db.all(s)) },
    values: { value: (s: Parameters<Database['values']>[0]) => (count(s.sql), db.values(s)) },
  }) as Database;
  return { backend: Object.create(backend, { db: { value: view } }) as StorageBackend, reads };
}

describe.skipIf(!withPostgres)('summaries kept across restarts', () => {
  let cluster: Cluster;
  let container: string;
  let cacheDir: string;
  const opened: StorageBackend[] = [];
  /** A run of Quarry on the rich database: a storage opened anew, as at a start. */
  const start = async () => {
    const backend = await openPostgresUrl(cluster.url('rich'), container, { name: 'rich', cacheDir });
    opened.push(backend);
    return counted(backend);
  };
  const both = async (backend: StorageBackend) => ({
    statistics: (await statisticsJson(backend, undefined)).value,
    types: (await typeCountsOf(backend, undefined)).value,
  });

  beforeAll(async () => {
    cluster = await startCluster();
    cluster.restore('rich', dump);
    const root = tempDir('quarry-kept-');
    container = await unpackContainer(richFile('rich-container-loose.tar.gz'), root);
    cacheDir = join(root, 'cache');
  }, 60_000);

  afterAll(async () => {
    await Promise.all(opened.map((b) => b.close()));
    cluster?.destroy();
  });

  it('answers the next run from the files while the data is the same, and computes them after a write', async () => {
    const first = await start();
    await warmSummaries(first.backend);
    expect(first.reads.length).toBeGreaterThan(0);
    const computed = await both(first.backend);
    await sleep(100);
    expect(readdirSync(join(cacheDir, 'summaries')).filter((f) => f.endsWith('.json'))).toHaveLength(2);

    const second = await start();
    expect(await both(second.backend)).toEqual(computed);
    expect(second.reads).toEqual([]);

    // One more node: a new data version, whose summaries no run has kept.
    cluster.sql(
      'rich',
      `INSERT INTO db_dbnode (uuid, node_type, label, description, ctime, mtime, attributes, extras,
         repository_metadata, user_id)
       SELECT gen_random_uuid(), 'data.core.int.Int.', 'kept', '', now(), now(), '{"value": 1}', '{}', '{}',
         min(id) FROM db_dbuser`,
    );
    const third = await start();
    const after = await both(third.backend);
    expect(third.reads.length).toBeGreaterThan(0);
    const nodes = (types: unknown) => (types as { count: number }[]).reduce((n, t) => n + t.count, 0);
    expect(nodes(after.types)).toBe(nodes(computed.types) + 1);
    // The new version's summaries replace the old ones: a database that keeps changing keeps two files.
    await sleep(100);
    expect(readdirSync(join(cacheDir, 'summaries')).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('computes again from a file that is not whole, and writes it anew', async () => {
    const first = await start();
    const computed = await both(first.backend);
    expect(first.reads).toEqual([]);
    for (const file of readdirSync(join(cacheDir, 'summaries'))) {
      writeFileSync(join(cacheDir, 'summaries', file), '{"key": ');
    }
    const second = await start();
    expect(await both(second.backend)).toEqual(computed);
    expect(second.reads.length).toBeGreaterThan(0);
    await sleep(100);
    const third = await start();
    expect(await both(third.backend)).toEqual(computed);
    expect(third.reads).toEqual([]);
  });

  it.skipIf(!existsSync(cli))(
    'keeps them in the cache folder of `quarry serve`, read by the next start',
    async () => {
      const cache = tempDir('quarry-kept-cli-');
      const files = () => readdirSync(join(cache, 'summaries')).filter((f) => f.endsWith('.json'));
      const serveOnce = async () => {
        const args = ['--repository', container, '--cache-dir', cache];
        const serving = await serveProcesses(cluster.url('rich'), 1, args);
        try {
          const base = `http://127.0.0.1:${serving.port}`;
          // The first answer of /readyz: 503 while the summaries are computed, 200 when they were read.
          const firstReady = (await fetch(`${base}/readyz`)).status;
          for (let tries = 0; (await fetch(`${base}/readyz`)).status !== 200; tries++) {
            expect(tries).toBeLessThan(300);
            await sleep(100);
          }
          await until(
            'the kept files',
            () => (existsSync(join(cache, 'summaries')) && files().length === 2) || undefined,
          );
          const statistics = await fetch(`${base}/api/v4/nodes/statistics/`);
          return { firstReady, statistics: (await statistics.json()).data };
        } finally {
          serving.server.kill('SIGTERM');
          await new Promise((r) => serving.server.once('exit', r));
        }
      };
      const first = await serveOnce();
      expect(files()).toHaveLength(2);
      const written = files().map((f) => statSync(join(cache, 'summaries', f)).mtimeMs);
      const second = await serveOnce();
      // Ready at once from the files, the same figures, nothing computed (nothing written) again.
      expect(second.statistics).toEqual(first.statistics);
      expect(second.firstReady).toBe(200);
      expect(files().map((f) => statSync(join(cache, 'summaries', f)).mtimeMs)).toEqual(written);
    },
  );
});
