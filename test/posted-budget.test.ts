/**
 * A posted query is the client's own: its statements run in the heavy lane, where clients take turns and which
 * never takes every connection (src/storage/admission.ts), on every storage. On a live profile the tag hook asks
 * the data version before the handler, under a budget made for the request then; the handler's statements must
 * still run as posted ones, and the version is read once for the whole request.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOIN_QUERY } from '../src/bench/never-asked.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import type { Database, QueryBudget, StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { richPostgresProfile, sqliteDosFolder } from './support/profile-fixtures.js';
import { onEachStatement } from './support/statements.js';
import { tempDir } from './support/temp.js';

/** The budgets the statements on `db` run under from now on. */
function recordBudgets(db: Database): (QueryBudget | undefined)[] {
  const seen: (QueryBudget | undefined)[] = [];
  onEachStatement(db, (_statement, budget) => seen.push(budget));
  return seen;
}

/** A live PostgreSQL profile of the rich data, in a cluster of its own (closed with the storage). */
async function postgresProfile(): Promise<StorageBackend> {
  const cluster: Cluster = await startCluster();
  try {
    const backend = await richPostgresProfile(cluster, tempDir('quarry-budget-'));
    const close = backend.close.bind(backend);
    return Object.assign(backend, { close: async () => (await close(), cluster.destroy()) });
  } catch (error) {
    cluster.destroy();
    throw error;
  }
}

const storages: [string, () => Promise<StorageBackend>][] = [
  ['an archive', () => openArchive(richFile('rich.aiida'))],
  [
    'a live core.sqlite_dos profile',
    async () =>
      openSqliteDos(
        await sqliteDosFolder(richFile('rich.aiida'), richFile('rich-container-packed.tar.gz'), tempDir()),
      ),
  ],
  // PostgreSQL needs its binaries (.ci/run installs them); left out without them.
  ...(withPostgres
    ? [['a live PostgreSQL profile', postgresProfile] as [string, () => Promise<StorageBackend>]]
    : []),
];

describe.each(storages)('the budget of requests on %s', (_name, open) => {
  let app: FastifyInstance;
  let backend: StorageBackend;
  let seen: (QueryBudget | undefined)[];
  /** How often the storage's data version was read (a live profile's; an archive has none). */
  let versionReads = 0;
  beforeAll(async () => {
    backend = await open();
    const read = backend.dataVersion;
    if (read !== undefined)
      (backend as { dataVersion?: () => Promise<string> }).dataVersion = function (this: StorageBackend) {
        versionReads++;
        return read.call(this);
      };
    app = await buildApp({ backends: [backend] });
    seen = recordBudgets(backend.db);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await backend?.close();
  });

  it('runs a posted query in the heavy lane', async () => {
    seen.length = 0;
    const body = { ...JOIN_QUERY, filters: { c: { id: { '>': -7 } } } };
    const answer = await app.inject({ method: 'POST', url: '/api/v4/querybuilder/', payload: body });
    expect(answer.statusCode).toBe(200);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((budget) => budget?.heavy)).toEqual(seen.map(() => true));
  });

  it('runs a page of nodes in the ordinary lane', async () => {
    seen.length = 0;
    const answer = await app.inject({ method: 'GET', url: '/api/v4/nodes/page/1/?perpage=7&orderby=-ctime' });
    expect(answer.statusCode).toBe(200);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((budget) => budget?.heavy === true)).toEqual([]);
  });

  it('reads the data version once a request: its tag, its kept name and its summaries name the same', async () => {
    const once = backend.dataVersion === undefined ? 0 : 1;
    versionReads = 0;
    const body = { ...JOIN_QUERY, filters: { c: { id: { '>': -8 } } } };
    expect(
      (await app.inject({ method: 'POST', url: '/api/v4/querybuilder/', payload: body })).statusCode,
    ).toBe(200);
    expect(versionReads).toBe(once);
    versionReads = 0;
    const page = await app.inject({ method: 'GET', url: '/api/v4/nodes/page/1/?perpage=9&orderby=-ctime' });
    expect(page.statusCode).toBe(200);
    expect(versionReads).toBe(once);
  });
});
