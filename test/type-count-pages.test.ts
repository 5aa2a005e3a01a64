/**
 * A page of nodes filtered by one node type alone takes its X-Total-Count from the node-wide type counts when
 * they are kept (src/rest/list.ts, typeCount): the same total as counting, on an archive and on a live
 * core.sqlite_dos profile, and on the profile the count after AiiDA adds a node of the type.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import { openSqliteDos } from '../src/storage/profiles.js';
import { warmSummaries } from '../src/rest/node-summaries.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { sqliteDosFolder } from './support/profile-fixtures.js';
import { tempDir } from './storage-fixtures.js';

const TYPES = [
  'data.core.dict.Dict.',
  'data.core.array.bands.BandsData.',
  'process.workflow.workchain.WorkChainNode.',
];

const page = (type: string) => `/api/v4/nodes/page/1/?perpage=20&orderby=-ctime&node_type="${type}"`;

async function counted(app: Awaited<ReturnType<typeof buildApp>>, type: string): Promise<number> {
  const r = await app.inject({
    method: 'POST',
    url: '/api/v4/querybuilder/',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      path: [{ entity_type: '', orm_base: 'node', tag: 'n' }],
      filters: { n: { node_type: { '==': type } } },
      project: { n: ['id'] },
    }),
  });
  return Number(r.headers['x-total-count']);
}

async function totals(backend: StorageBackend): Promise<void> {
  const app = await buildApp({ backends: [backend], keptAnswers: false });
  try {
    for (const type of TYPES) {
      const r = await app.inject(page(type));
      expect(r.statusCode).toBe(200);
      const total = Number(r.headers['x-total-count']);
      expect(total).toBeGreaterThan(0);
      expect(total).toBe(await counted(app, type));
      expect((r.json() as { data: { nodes: unknown[] } }).data.nodes).toHaveLength(Math.min(20, total));
    }
  } finally {
    await app.close();
  }
}

describe('pages of one node type counted from the type counts', () => {
  it('give the counted total on an archive', async () => {
    const backend = await openArchive(richFile('rich.aiida'), { cacheDir: tempDir() });
    try {
      await totals(backend);
    } finally {
      await backend.close();
    }
  });

  it('give the counted total on a live profile, and the new total after a write', async () => {
    const folder = await sqliteDosFolder(
      richFile('rich.aiida'),
      richFile('rich-container-packed.tar.gz'),
      tempDir(),
    );
    const backend = await openSqliteDos(folder);
    try {
      await warmSummaries(backend);
      await totals(backend);
      const app = await buildApp({ backends: [backend], keptAnswers: false });
      try {
        const type = TYPES[0]!;
        const before = Number((await app.inject(page(type))).headers['x-total-count']);
        // AiiDA (here, this test) stores one more node of the type: a copy of the newest with a new UUID.
        const db = new BetterSqlite3(join(folder, 'database.sqlite'));
        const columns = (db.prepare('PRAGMA table_info(db_dbnode)').all() as { name: string }[])
          .map((c) => c.name)
          .filter((c) => c !== 'id');
        const copied = columns.map((c) => (c === 'uuid' ? "'0b8c2f1e-7d6a-4c1b-9e2f-3a4b5c6d7e8f'" : c));
        db.prepare(
          `INSERT INTO db_dbnode (${columns.join(', ')}) SELECT ${copied.join(', ')} FROM db_dbnode WHERE node_type = ? LIMIT 1`,
        ).run(type);
        db.close();
        const after = await app.inject(page(type));
        expect(Number(after.headers['x-total-count'])).toBe(before + 1);
        expect(Number(after.headers['x-total-count'])).toBe(await counted(app, type));
      } finally {
        await app.close();
      }
    } finally {
      await backend.close();
    }
  });
});
