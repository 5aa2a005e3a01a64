/**
 * A PostgreSQL server that asks for a password, served without one: `quarry serve` says how to give it, in one
 * line, instead of node-postgres's SASL message. A throw-away cluster whose loopback connections need a password
 * (scram-sha-256).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { richFile } from './conformance/corpus.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { cli } from './support/serving.js';
import { tempDir } from './support/temp.js';

describe.skipIf(!withPostgres || !existsSync(cli))('a PostgreSQL server that asks for a password', () => {
  let cluster: Cluster;
  let container: string;

  beforeAll(async () => {
    container = await unpackContainer(richFile('rich-container-loose.tar.gz'), tempDir());
    cluster = await startCluster();
    cluster.sql('postgres', "ALTER USER quarry PASSWORD 'secret'");
    // Loopback needs the password; the local socket (the cluster's own tools) stays trusted.
    writeFileSync(
      join(cluster.dataDir, 'pg_hba.conf'),
      'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
    );
    cluster.sql('postgres', 'SELECT pg_reload_conf()');
  }, 60_000);
  afterAll(() => cluster?.destroy());

  it('says to set PGPASSWORD or put the password in the URL', () => {
    const env = { ...process.env };
    delete env.PGPASSWORD;
    const run = spawnSync(
      process.execPath,
      [cli, 'serve', cluster.url('postgres'), '--repository', container, '--port', '0', '--processes', '1'],
      { encoding: 'utf8', env: { ...env, PGPASSFILE: join(tempDir(), 'none') } },
    );
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/asks for a password: set PGPASSWORD or put the password in the URL/);
    expect(run.stderr).not.toMatch(/SASL/);
  });
});
