/**
 * Whole GET answers of live profiles kept under the data version: a repeated page, node, links or contents
 * request is the same bytes without a query, and a write to the profile between two requests gives the new
 * answer within the bound (a PostgreSQL server's snapshot is asked at most once a second; a SQLite file's
 * version at every request). PostgreSQL needs its binaries (.ci/run installs them); skipped without them.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { keptGetUse } from '../src/ops/kept-gets.js';
import { buildApp } from '../src/server/app.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import type { Database, StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { richPostgresProfile, sqliteDosFolder } from './support/profile-fixtures.js';
import { countStatements } from './support/statements.js';
import { tempDir } from './support/temp.js';

const hits = (kind: string) => keptGetUse().get(kind as never)?.hits ?? 0;

/** While `slow.ms` is set, each statement on `db` answers that much later (an answer costly to make). */
function slowable(db: Database): { ms: number } {
  const slow = { ms: 0 };
  const { all, values } = db;
  const later = <T>(answer: Promise<T>) =>
    slow.ms === 0 ? answer : answer.then(async (rows) => (await sleep(slow.ms), rows));
  Object.assign(db, {
    all: (...args: Parameters<Database['all']>) => later(all.apply(db, args)),
    values: (...args: Parameters<Database['values']>) => later(values.apply(db, args)),
  });
  return slow;
}

/** The checks every live storage passes; `write` relabels a node as AiiDA would, `boundMs` the version's bound. */
function keptWhileUnchanged(
  open: () => Promise<{ backend: StorageBackend; write: (id: number, label: string) => void; close(): void }>,
  boundMs: number,
) {
  let app: FastifyInstance;
  let backend: StorageBackend;
  let write: (id: number, label: string) => void;
  let close: () => void;
  let statements: () => number;
  let slow: { ms: number };
  beforeAll(async () => {
    ({ backend, write, close } = await open());
    app = await buildApp({ backends: [backend] });
    slow = slowable(backend.db);
    statements = countStatements(backend.db);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await backend?.close();
    close?.();
  });

  const get = (url: string) => app.inject({ method: 'GET', url: `/api/v4${url}` });

  it('answers a repeated page, node, links and contents request with the same bytes and no query', async () => {
    const page = await get('/nodes/page/1/?perpage=20&orderby=-ctime');
    expect(page.statusCode).toBe(200);
    const id = page.json().data.nodes[0].uuid as string;
    const urls = [
      '/nodes/page/1/?perpage=20&orderby=-ctime',
      `/nodes/${id}`,
      `/nodes/${id}/links/incoming`,
      `/nodes/${id}/contents/attributes`,
    ];
    const first = await Promise.all(urls.map(get));
    // An answer asked once is not kept (a crawler's walk writes nothing); the second ask keeps it.
    const once = statements();
    const second = await Promise.all(urls.map(get));
    expect(statements()).toBeGreaterThan(once);
    for (const [i, answer] of second.entries()) expect(answer.body).toBe(first[i]!.body);
    const before = { statements: statements(), node: hits('node'), links: hits('links') };
    const again = await Promise.all(urls.map(get));
    for (const [i, answer] of again.entries()) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(first[i]!.body);
      expect(answer.headers.etag).toBe(first[i]!.headers.etag);
      expect(answer.headers['x-total-count']).toBe(first[i]!.headers['x-total-count']);
      expect(answer.headers['content-type']).toBe(first[i]!.headers['content-type']);
    }
    // At most the data version's own statement (PostgreSQL's snapshot, once a second).
    expect(statements() - before.statements).toBeLessThanOrEqual(1);
    expect(hits('node')).toBe(before.node + 1);
    expect(hits('links')).toBe(before.links + 1);
  });

  it('keeps an answer that took long to make at its first ask', async () => {
    const url = '/nodes/page/2/?perpage=7&orderby=id';
    slow.ms = 300;
    let first;
    try {
      first = await get(url);
    } finally {
      slow.ms = 0;
    }
    expect(first.statusCode).toBe(200);
    const before = hits('node_page');
    const again = await get(url);
    expect(again.body).toBe(first.body);
    expect(hits('node_page')).toBe(before + 1);
  });

  it('gives the new answer within the bound after the profile is written', async () => {
    const url = '/nodes/page/1/?perpage=20&orderby=-ctime';
    const first = (await get(url)).json().data.nodes[0] as { id: number; uuid: string; label: string };
    const single = await get(`/nodes/${first.uuid}`);
    expect(single.statusCode).toBe(200);
    await get(url);
    const label = `relabelled at ${Date.now()}`;
    write(first.id, label);
    const written = Date.now();
    let seen: { id: number; label: string } | undefined;
    while (Date.now() - written < boundMs + 2_000) {
      seen = (await get(url)).json().data.nodes[0];
      if (seen?.label === label) break;
      await sleep(50);
    }
    expect(seen).toMatchObject({ id: first.id, label });
    expect(Date.now() - written).toBeLessThanOrEqual(boundMs + 250);
    // Every other kept answer of the old data is made anew too.
    expect((await get(`/nodes/${first.uuid}`)).json().data.nodes[0].label).toBe(label);
  });
}

describe('kept GET answers on a live core.sqlite_dos profile', () => {
  keptWhileUnchanged(async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    const backend = await openSqliteDos(folder);
    const write = (id: number, label: string) => {
      const db = new BetterSqlite3(join(folder, 'database.sqlite'));
      db.prepare('UPDATE db_dbnode SET label = ? WHERE id = ?').run(label, id);
      db.close();
    };
    return { backend, write, close: () => undefined };
  }, 0);
});

describe.skipIf(!withPostgres)('kept GET answers on a live PostgreSQL profile', () => {
  keptWhileUnchanged(async () => {
    const cluster: Cluster = await startCluster();
    try {
      const backend = await richPostgresProfile(cluster, tempDir('quarry-kept-'));
      const write = (id: number, label: string) =>
        void cluster.sql('rich', `UPDATE db_dbnode SET label = '${label}' WHERE id = ${id}`);
      return { backend, write, close: () => cluster.destroy() };
    } catch (error) {
      cluster.destroy();
      throw error;
    }
  }, 1_000);
});
