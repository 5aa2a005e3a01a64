/** Several storages in one server: `?profile=NAME` picks one per request; the first answers by default. */
import { join } from 'node:path';
import { truncateSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import { postgresTarget, redacted } from '../src/storage/postgres/url.js';
import { richFile } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';
import { sqliteDosFolder } from './support/profile-fixtures.js';

/** The CIF file of the first CifData node, downloaded (`query` selects the profile). */
async function downloadCif(app: FastifyInstance, query = '') {
  const list = await app.inject(`/api/v4/nodes/?node_type="data.core.cif.CifData."&limit=1${query}`);
  const uuid = list.json().data.nodes[0].uuid as string;
  return app.inject(`/api/v4/nodes/${uuid}/download/?download_format=cif${query}`);
}

describe('profile selection', () => {
  let backends: StorageBackend[];
  let app: FastifyInstance;
  const total = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, total: r.headers['x-total-count'], body: r.json() };
  };

  beforeAll(async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    backends = [
      await openArchive(await smallArchive(300), { cacheDir: tempDir() }),
      await openSqliteDos(folder, { name: 'rich-live' }),
    ];
    app = await buildApp({ backends });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all((backends ?? []).map((b) => b.close()));
  });

  it('answers from the first storage by default and from the named one with ?profile=', async () => {
    const first = await total('/api/v4/nodes/?limit=1');
    const live = await total('/api/v4/nodes/?limit=1&profile=rich-live');
    expect(first.status).toBe(200);
    expect(live.status).toBe(200);
    expect(Number(first.total)).toBe(300);
    expect(Number(live.total)).toBeGreaterThan(1000);
  });

  it('serves the repository files of a core.sqlite_dos profile from its container', async () => {
    const file = await downloadCif(app, '&profile=rich-live');
    expect(file.statusCode).toBe(200);
    expect(file.body).toMatch(/_cell_length_a/);
  });

  it('refuses an unknown profile with 400 and the names it serves', async () => {
    const r = await total('/api/v4/nodes/?profile=nope');
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/rich-live/);
  });

  it('answers 502 with a message for a file whose pack is damaged, and goes on serving', async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    truncateSync(join(folder, 'container', 'packs', '0'), 0);
    const damaged = await openSqliteDos(folder, { name: 'damaged' });
    const damagedApp = await buildApp({ backends: [damaged] });
    try {
      const file = await downloadCif(damagedApp);
      expect(file.statusCode).toBe(502);
      expect(file.json().message).toMatch(/damaged/);
      expect((await damagedApp.inject({ method: 'GET', url: '/api/v4/nodes/?limit=1' })).statusCode).toBe(
        200,
      );
    } finally {
      await damagedApp.close();
      await damaged.close();
    }
  });
});

describe('PostgreSQL URLs in messages', () => {
  it("names a server by host, port and database, a local socket's folder included", () => {
    expect(postgresTarget('postgres://aiida@db.example:5433/mc3d')).toEqual({
      where: 'db.example:5433/mc3d',
      database: 'mc3d',
    });
    expect(postgresTarget('postgres://aiida@/mc3d?host=%2Fvar%2Frun%2Fpostgresql')).toEqual({
      where: '/var/run/postgresql:5432/mc3d',
      database: 'mc3d',
    });
    expect(postgresTarget('postgresql://localhost').database).toBe('postgres');
  });

  it('never shows a password, in the user part or as a parameter', () => {
    expect(redacted('postgres://aiida:s3cr%40t@db:5432/mc3d')).toBe('postgres://aiida:***@db:5432/mc3d');
    expect(redacted('postgres://aiida@/mc3d?host=%2Ftmp&password=s3cret&port=1')).toBe(
      'postgres://aiida@/mc3d?host=%2Ftmp&password=***&port=1',
    );
    expect(redacted('postgres://aiida@db/mc3d')).toBe('postgres://aiida@db/mc3d');
  });
});
