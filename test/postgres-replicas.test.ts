/**
 * A PostgreSQL source with a real read replica: a throw-away primary holding the rich conformance profile and a
 * streaming standby made from it with `pg_basebackup -R`, served through Quarry over HTTP. Needs PostgreSQL
 * (.ci/run installs it) and the conformance data; skips without them.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { serverChangeLine } from '../src/cli/announce.js';
import { buildApp } from '../src/server/app.js';
import { openContainer } from '../src/storage/disk-objectstore.js';
import { openPostgres } from '../src/storage/postgres/backend.js';
import type { PostgresServers } from '../src/storage/postgres/servers.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { loadArchiveCase, replayArchive } from './conformance/replay.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const dump = richFile('rich-psql.sql.gz');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Read transactions a server has run in the rich database (its own statistics, flushed about once a second). */
function transactions(cluster: Cluster): number {
  return Number(sql(cluster, 'postgres', "SELECT xact_commit FROM pg_stat_database WHERE datname = 'rich'"));
}

const sql = (cluster: Cluster, database: string, text: string) => cluster.sql(database, text).trim();

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
}

describe.skipIf(!withPostgres)('PostgreSQL with a streaming read replica', () => {
  let primary: Cluster;
  let standby: Cluster;
  let repository: string;
  const opened: { app: FastifyInstance; backend: StorageBackend }[] = [];

  /** Quarry serving the primary and its replica, listening on a loopback port. */
  async function serve(options: { replicasOnly?: boolean } = {}) {
    const said: string[] = [];
    const backend = await openPostgres(primary.url('rich'), await openContainer(repository), {
      name: 'rich',
      replicas: [standby.url('rich')],
      poolSize: 4,
      timeoutMs: 10_000,
      retryMs: 100,
      onChange: (...change) => said.push(serverChangeLine(...change)),
      ...options,
    });
    const app = await buildApp({ backends: [backend], queryTimeoutMs: 10_000 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    opened.push({ app, backend });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v4`;
    const servers = () => (backend.db as PostgresServers).states();
    return { app, backend, base, servers, said };
  }

  beforeAll(async () => {
    primary = await startCluster();
    primary.restore('rich', dump);
    standby = await startCluster({ standbyOf: primary });
    repository = await unpackContainer(richFile('rich-container-loose.tar.gz'), tempDir('quarry-replica-'));
  }, 120_000);

  afterAll(async () => {
    for (const { app, backend } of opened) {
      await app.close();
      await backend.close();
    }
    standby?.destroy();
    primary?.destroy();
  });

  it('is a real standby: it refuses writes and replays what the primary commits', async () => {
    expect(sql(standby, 'postgres', 'SELECT pg_is_in_recovery()')).toBe('t');
    expect(() => standby.sql('rich', "UPDATE db_dbnode SET label = 'x'")).toThrow(/read-only/);
    const first = 'SELECT label FROM db_dbnode ORDER BY id LIMIT 1';
    const label = sql(primary, 'rich', first);
    const setLabel = (text: string) =>
      primary.sql(
        'rich',
        `UPDATE db_dbnode SET label = '${text}' WHERE id = (SELECT min(id) FROM db_dbnode)`,
      );
    setLabel('replayed');
    await until('the standby replays the change', () => sql(standby, 'rich', first) === 'replayed');
    setLabel(label.replace(/'/g, "''"));
    await until('the standby replays it back', () => sql(standby, 'rich', first) === label);
  });

  it(
    'answers every conformance request from the replica as the reference did',
    { timeout: 120_000 },
    async () => {
      const data = loadArchiveCase('rich', 'psql');
      if (!data) throw new Error('the recorded answers of rich as core.psql_dos are missing');
      const { app, servers } = await serve({ replicasOnly: true });
      const before = transactions(standby);
      const primaryBefore = transactions(primary);
      const verdicts = await replayArchive(app, data);
      const failures = verdicts.filter((v) => v.inScope && !v.agree);
      expect(failures.map((f) => `${f.id}: ${f.problem}`)).toEqual([]);
      // The replica ran the reads (its statistics count them), the primary next to none.
      await until('the replica counts the reads', () => transactions(standby) - before > 100);
      expect(transactions(primary) - primaryBefore).toBeLessThan(20);
      expect(servers().map((s) => [s.role, s.up])).toEqual([
        ['primary', true],
        ['replica', true],
      ]);
    },
  );

  const structures = "SELECT count(*) FROM db_dbnode WHERE node_type = 'data.core.structure.StructureData.'";

  it('answers OPTIMADE from one server while the replica lags: the count, the entries and the tag agree', async () => {
    const { app } = await serve();
    const ask = async (url: string) => {
      const answer = await app.inject({ method: 'GET', url });
      return { status: answer.statusCode, tag: answer.headers.etag, body: answer.json() };
    };
    const before = (await ask('/optimade/v1/structures?page_limit=1')).body.meta.data_returned as number;
    const onStandby = Number(sql(standby, 'rich', structures));
    // The replica stops replaying: a structure added on the primary is not on it.
    standby.sql('postgres', 'SELECT pg_wal_replay_pause()');
    // The standby pauses at the next record it replays: a transaction of the primary's makes one.
    await until('the standby pauses its replay', () => {
      primary.sql('postgres', 'SELECT txid_current()');
      return sql(standby, 'postgres', 'SELECT pg_get_wal_replay_pause_state()') === 'paused';
    });
    const uuid = sql(
      primary,
      'rich',
      `INSERT INTO db_dbnode (uuid, node_type, process_type, label, description, ctime, mtime, attributes, extras,
         repository_metadata, dbcomputer_id, user_id)
       SELECT gen_random_uuid(), node_type, process_type, 'added', description, now(), now(), attributes, extras,
         repository_metadata, dbcomputer_id, user_id
       FROM db_dbnode WHERE node_type = 'data.core.structure.StructureData.' ORDER BY id LIMIT 1
       RETURNING uuid`,
    ).split('\n')[0]!;
    try {
      expect(Number(sql(standby, 'rich', structures))).toBe(onStandby);
      expect(Number(sql(primary, 'rich', structures))).toBe(onStandby + 1);
      // Past the data version's bound (1 s): the change is seen.
      await sleep(1_200);
      const answers = [];
      for (let i = 0; i < 6; i++) {
        answers.push(await ask('/optimade/v1/structures?page_limit=1'));
        answers.push(await ask(`/optimade/v1/structures/${uuid}`));
      }
      const listings = answers.filter((_, i) => i % 2 === 0);
      const entries = answers.filter((_, i) => i % 2 === 1);
      // Requests go to both servers in turn; OPTIMADE's all read the primary, so none misses the new structure.
      expect(listings.map((a) => a.body.meta.data_returned)).toEqual(listings.map(() => before + 1));
      expect(entries.map((a) => a.status)).toEqual(entries.map(() => 200));
      expect(new Set(listings.map((a) => a.tag)).size).toBe(1);
    } finally {
      standby.sql('postgres', 'SELECT pg_wal_replay_resume()');
      primary.sql('rich', `DELETE FROM db_dbnode WHERE uuid = '${uuid}'`);
    }
  }, 120_000);

  /**
   * Clients that ask for pages and nodes one after another for `ms`, counting every answer that is not a 200;
   * `during` runs a little after they start.
   */
  async function load(base: string, ms: number, during: () => Promise<void>) {
    const statuses: number[] = [];
    const problems: string[] = [];
    const stopAt = Date.now() + ms;
    const client = async (i: number) => {
      while (Date.now() < stopAt) {
        const url =
          i % 2 ? `${base}/nodes/page/${(statuses.length % 5) + 1}/?perpage=5` : `${base}/computers/`;
        try {
          const answer = await fetch(url);
          await answer.arrayBuffer();
          statuses.push(answer.status);
          if (answer.status !== 200) problems.push(`${answer.status} ${url}`);
        } catch (error) {
          problems.push(`${(error as Error).message} ${url}`);
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, i) => client(i));
    await sleep(300);
    await during();
    await Promise.all(clients);
    return { answered: statuses.length, problems };
  }

  it('loses no request when the replica stops under load, and uses it again when it is back', async () => {
    const { base, servers, backend, said } = await serve();
    const { answered, problems } = await load(base, 3_000, async () => standby.stop());
    // Requests in flight on the replica when it died were run again on the primary: none was lost.
    const rerun = (backend.db as PostgresServers).serversLost;
    console.log(`replica stopped under load: ${answered} answers, ${rerun} requests run again, none lost`);
    expect(problems).toEqual([]);
    expect(answered).toBeGreaterThan(50);
    expect(servers().find((s) => s.role === 'replica')?.up).toBe(false);
    expect(said).toEqual([expect.stringMatching(/ is out \(.*\); reads go to the others\n$/)]);

    standby.start();
    await until('the replica is taken back', () => servers().every((s) => s.up));
    const before = transactions(standby);
    for (let i = 0; i < 40; i++) expect((await fetch(`${base}/nodes/page/1/?perpage=5`)).status).toBe(200);
    await until('reads reach the replica again', () => transactions(standby) > before);
  }, 60_000);

  it('keeps answering from the replica while the primary is stopped', async () => {
    const { base, servers, backend } = await serve();
    const { answered, problems } = await load(base, 3_000, async () => primary.stop());
    try {
      const rerun = (backend.db as PostgresServers).serversLost;
      console.log(`primary stopped under load: ${answered} answers, ${rerun} requests run again, none lost`);
      expect(problems).toEqual([]);
      expect(answered).toBeGreaterThan(50);
      expect(servers().map((s) => [s.role, s.up])).toEqual([
        ['primary', false],
        ['replica', true],
      ]);
    } finally {
      primary.start();
    }
    await until('the primary is taken back', () => servers().every((s) => s.up));
  }, 60_000);
});
