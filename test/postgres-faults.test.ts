/**
 * A PostgreSQL profile under faults: the database stopped and started again under requests, a query past the
 * time limit, 200 concurrent requests on a small pool, and writes refused. Needs PostgreSQL (.ci/run
 * installs it) and the conformance data; skips without them.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { flushWarnings, setFailureSink } from '../src/http/failures.js';
import { PostgresDatabase } from '../src/storage/postgres/database.js';
import type { PostgresServers } from '../src/storage/postgres/servers.js';
import { openPostgresUrl, openProfile } from '../src/storage/profiles.js';
import { StorageOpenError, type StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const dump = richFile('rich-psql.sql.gz');

/** An AiiDA configuration (`.aiida/config.json` in a folder of its own) with one core.psql_dos profile. */
function aiidaConfig(name: string, settings: Record<string, unknown>): string {
  const folder = join(tempDir('quarry-aiida-'), '.aiida');
  mkdirSync(folder);
  const file = join(folder, 'config.json');
  const storage = { backend: 'core.psql_dos', config: settings };
  writeFileSync(file, JSON.stringify({ profiles: { [name]: { storage } } }));
  return file;
}

describe.skipIf(!withPostgres)('PostgreSQL profile under faults', () => {
  let cluster: Cluster;
  let repository: string;
  let backend: StorageBackend;
  let app: FastifyInstance;
  const get = (url: string) => app.inject({ method: 'GET', url: `/api/v4${url}` });

  beforeAll(async () => {
    cluster = await startCluster();
    cluster.restore('rich', dump);
    // Laid out as a profile's repository folder: <repository>/container.
    const root = tempDir('quarry-pgf-');
    const unpacked = await unpackContainer(richFile('rich-container-loose.tar.gz'), root);
    repository = join(root, 'repository');
    mkdirSync(repository);
    renameSync(unpacked, join(repository, 'container'));
    backend = await openPostgresUrl(cluster.url('rich'), join(repository, 'container'), {
      name: 'rich',
      workers: 4,
      queryTimeoutMs: 500,
    });
    app = await buildApp({ backends: [backend] });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await backend?.close();
    cluster?.destroy();
  });

  it('answers 503 quickly while the database is down, and recovers when it is back', async () => {
    expect((await get('/nodes/?limit=5')).statusCode).toBe(200);
    cluster.stop();
    const started = Date.now();
    // Not the listing just answered: that one is kept, and served while its data version is current (1 s).
    const down = await Promise.all([1, 2, 3].map(() => get('/nodes/?limit=4')));
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const r of down) {
      expect(r.statusCode).toBe(503);
      expect(r.json().message).toMatch(/not reachable/);
    }
    cluster.start();
    const back = await Promise.all([1, 2, 3, 4, 5, 6].map(() => get('/nodes/?limit=5')));
    expect(back.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
  }, 60_000);

  it('writes a few kilobytes of log, not megabytes, for an outage under 32 clients', async () => {
    expect((await get('/nodes/?limit=5')).statusCode).toBe(200);
    let bytes = 0;
    const lines: string[] = [];
    const restore = setFailureSink((line) => {
      bytes += Buffer.byteLength(line);
      lines.push(line);
    });
    let answered = 0;
    try {
      cluster.stop();
      const until = Date.now() + 4_000;
      const client = async (c: number) => {
        for (let i = 0; Date.now() < until; i++) {
          const r = await get(`/nodes/?limit=5&id>${c * 1000 + i}`);
          expect(r.statusCode).toBe(503);
          answered++;
        }
      };
      await Promise.all(Array.from({ length: 32 }, (_, c) => client(c)));
      flushWarnings();
    } finally {
      restore();
      cluster.start();
    }
    console.log(`${answered} answers of 503 during the outage; ${lines.length} log lines, ${bytes} bytes`);
    expect(answered).toBeGreaterThan(100);
    expect(bytes).toBeLessThan(20_000);
    const back = await get('/nodes/?limit=5');
    expect(back.statusCode).toBe(200);
  }, 60_000);

  it('stops a query at the time limit with 503 and keeps serving', async () => {
    // Every combination of four nodes of the same user: far too many rows to count in half a second.
    const path = [
      { entity_type: 'node.Node.', orm_base: 'node', tag: 'a' },
      { entity_type: 'user', orm_base: 'user', tag: 'u', joining_keyword: 'with_node', joining_value: 'a' },
      ...['b', 'c', 'd'].map((tag) => ({
        entity_type: 'node.Node.',
        orm_base: 'node',
        tag,
        joining_keyword: 'with_user',
        joining_value: 'u',
      })),
    ];
    const slow = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: { path, project: { a: ['id'] } },
    });
    expect(slow.statusCode).toBe(503);
    expect(slow.json().message).toMatch(/time limit/);
    expect((await get('/nodes/?limit=1')).statusCode).toBe(200);
  }, 30_000);

  it('serves 200 concurrent requests through a pool of 4 sessions, without errors or leaks', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(`/nodes/page/${(i % 10) + 1}/?perpage=5&orderby=id`)),
    );
    expect(answers.filter((r) => r.statusCode !== 200).map((r) => `${r.statusCode} ${r.body}`)).toEqual([]);
    const sessions = (backend.db as PostgresServers).sessions;
    expect(sessions.total).toBeLessThanOrEqual(4);
    expect(sessions.waiting).toBe(0);
  }, 60_000);

  it('counts and statistics follow a live database that changes', async () => {
    // A posted query's answer is kept under the data version too: it follows the change like the counts.
    const posted = () =>
      app.inject({
        method: 'POST',
        url: '/api/v4/querybuilder/',
        payload: {
          path: [{ entity_type: '', orm_base: 'node', tag: 'n' }],
          project: { n: ['id'] },
          limit: 100_000,
        },
      });
    const total = async () => {
      const page = await get('/nodes/page/1/?perpage=1');
      const stats = await get('/nodes/statistics/');
      const rows = (await posted()).json().data.n.length as number;
      return [Number(page.headers['x-total-count']), stats.json().data.total as number, rows] as const;
    };
    const [before, statsBefore, rowsBefore] = await total();
    expect(rowsBefore).toBe(statsBefore);
    expect(await total()).toEqual([before, statsBefore, rowsBefore]);
    // AiiDA adds a node while Quarry serves.
    cluster.sql(
      'rich',
      `INSERT INTO db_dbnode (id, uuid, node_type, process_type, label, description, ctime, mtime, attributes,
         extras, repository_metadata, dbcomputer_id, user_id)
       SELECT (SELECT max(id) + 1 FROM db_dbnode), gen_random_uuid(), node_type, process_type, label, description,
         now(), now(), attributes, extras, repository_metadata, dbcomputer_id, user_id
       FROM db_dbnode ORDER BY id LIMIT 1`,
    );
    // The data version is asked at most once a second: the new node shows within about that.
    const started = Date.now();
    let after = await total();
    // Each answer sees the change at its own check of the version: they agree again within the same second.
    while (after.some((n, i) => n === [before, statsBefore, rowsBefore][i]) && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await total();
    }
    expect(after).toEqual([before + 1, statsBefore + 1, statsBefore + 1]);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('refuses to write, whatever the statement', async () => {
    const db = new PostgresDatabase({ url: cluster.url('rich') });
    try {
      await expect(db.all({ sql: 'CREATE TABLE quarry_probe (a int)', params: [] })).rejects.toThrow(
        /read-only/,
      );
      await expect(db.all({ sql: 'DELETE FROM db_dbnode', params: [] })).rejects.toThrow(/read-only/);
    } finally {
      await db.close();
    }
    expect(cluster.sql('rich', 'SELECT count(*) FROM db_dbnode').trim()).not.toBe('0');
  });

  it("opens a profile of AiiDA's config.json, and names the profiles when one is unknown", async () => {
    const url = new URL(cluster.url('rich'));
    const file = aiidaConfig('work', {
      database_hostname: url.hostname,
      database_port: Number(url.port),
      database_name: 'rich',
      database_username: url.username,
      database_password: '',
      repository_uri: pathToFileURL(repository).toString(),
    });

    const profile = await openProfile('work', {}, file);
    try {
      const profileApp = await buildApp({ backends: [profile] });
      const r = await profileApp.inject({ method: 'GET', url: '/api/v4/nodes/?limit=1&orderby=id' });
      expect(r.statusCode).toBe(200);
      expect(r.json().data.nodes).toHaveLength(1);
      await profileApp.close();
    } finally {
      await profile.close();
    }
    await expect(openProfile('play', {}, file)).rejects.toThrow(StorageOpenError);
    await expect(openProfile('play', {}, file)).rejects.toThrow(/profiles: work/);
  });

  it("reads through the server's local socket: a libpq socket URL, and a profile whose host is the socket's folder", async () => {
    const viaUrl = await openPostgresUrl(cluster.socketUrl('rich'), repository);
    expect(viaUrl.name).toBe('rich');
    const file = aiidaConfig('local', {
      database_hostname: cluster.socketDir,
      database_port: cluster.port,
      database_name: 'rich',
      database_username: 'quarry',
      repository_uri: pathToFileURL(repository).toString(),
    });
    const viaProfile = await openProfile('local', {}, file);
    const app = await buildApp({ backends: [viaUrl, viaProfile] });
    try {
      const overTcp = (await get('/nodes/?limit=3&orderby=id')).json().data.nodes;
      for (const profile of ['rich', 'local']) {
        const r = await app.inject(`/api/v4/nodes/?limit=3&orderby=id&profile=${profile}`);
        expect(r.statusCode).toBe(200);
        expect(r.json().data.nodes).toEqual(overTcp);
      }
      // The ready check names the socket's folder as the server.
      const ready = await app.inject('/readyz');
      expect(ready.body).toContain(`${cluster.socketDir}:${cluster.port}/rich`);
    } finally {
      await app.close();
      await Promise.all([viaUrl.close(), viaProfile.close()]);
    }
  });
});
