/**
 * /readyz and /metrics over real HTTP for a PostgreSQL source whose database goes down and comes back (a
 * throw-away cluster with the recorded rich dump).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { serverChangeLine } from '../src/cli/announce.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openPostgresUrl } from '../src/storage/profiles.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { unpackContainer } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const dump = richFile('rich-psql.sql.gz');

describe.skipIf(!withPostgres)('readiness of a PostgreSQL source', () => {
  let cluster: Cluster;
  let backend: StorageBackend;
  let app: FastifyInstance;
  let base: string;
  const said: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    cluster.restore('rich', dump);
    const root = tempDir('quarry-ready-');
    const container = await unpackContainer(richFile('rich-container-loose.tar.gz'), root);
    backend = await openPostgresUrl(cluster.url('rich'), container, {
      name: 'rich',
      workers: 2,
      onServerChange: (...change) => said.push(serverChangeLine(...change)),
    });
    app = await buildApp({ backends: [backend], metrics: true });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await backend?.close();
    cluster?.destroy();
  });

  it('is ready with its server listed, 503 naming it while the database is down, ready again after', async () => {
    expect((await fetch(`${base}/api/v4/nodes/?limit=1`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    const body = await ready.json();
    expect(body.sources[0]).toMatchObject({ name: 'rich', kind: 'postgres-profile', ready: true });
    expect(body.sources[0].servers[0]).toMatchObject({ role: 'primary', up: true });
    expect(body.sources[0].servers[0].server).not.toMatch(/password/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(
      /^quarry_db_sessions\{source="rich",server="[^"]+",role="primary",state="total"\} \d+$/m,
    );
    expect(metrics).toMatch(/^quarry_source_ready\{source="rich",kind="postgres-profile"\} 1$/m);

    cluster.stop();
    const started = Date.now();
    const down = await fetch(`${base}/readyz`);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(down.status).toBe(503);
    expect((await down.json()).message).toMatch(/^source rich is not ready: /);
    const scraped = await (await fetch(`${base}/metrics`)).text();
    expect(scraped).toMatch(/^quarry_source_ready\{source="rich",kind="postgres-profile"\} 0$/m);

    cluster.start();
    let again = 0;
    for (const end = Date.now() + 15_000; Date.now() < end && again !== 200;) {
      again = (await fetch(`${base}/readyz`)).status;
      if (again !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(again).toBe(200);
    // Its only server: no "others" for reads to go to while it was out, and one line each way.
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/ is out \(.*\); its requests answer 503 until it is back\n$/);
    expect(said.join('')).not.toMatch(/the others/);
    expect(said[1]).toMatch(/ answers again; reads go to it\n$/);
  }, 60_000);
});
