/**
 * The two floors every figure is compared with, measured in the same run: an empty HTTP route (what HTTP
 * costs on this machine) and the raw database time of the SQL a request runs (what its data costs).
 */
import BetterSqlite3 from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { SqliteWorkerPool } from '../storage/sqlite-workers.js';
import type { SqlStatement, StorageBackend } from '../storage/types.js';
import type { RequestKind } from './mix.js';

/** The statements one request runs, captured by serving it in-process through a recording database. */
export async function recordStatements(
  backend: StorageBackend,
  kinds: RequestKind[],
): Promise<Map<string, SqlStatement[]>> {
  let current: SqlStatement[] = [];
  const recording: StorageBackend = {
    ...backend,
    db: {
      ...backend.db,
      dialect: backend.db.dialect,
      all: (s) => (current.push(s), backend.db.all(s)),
      close: async () => {},
    },
  };
  const app: FastifyInstance = await buildApp({ backends: [recording] });
  const out = new Map<string, SqlStatement[]>();
  for (const kind of kinds) {
    current = [];
    const r = await app.inject({
      method: kind.method,
      url: kind.path,
      payload: kind.body as object | undefined,
    });
    if (r.statusCode >= 400) throw new Error(`${kind.name}: ${r.statusCode} ${r.body.slice(0, 200)}`);
    out.set(kind.name, current);
  }
  await app.close();
  return out;
}

/** Median time, in milliseconds, of running the statements once, straight on the database file. */
export function dataFloor(
  backend: StorageBackend,
  statements: SqlStatement[],
  repeats = 30,
): number | undefined {
  if (!(backend.db instanceof SqliteWorkerPool)) return undefined;
  const db = new BetterSqlite3(backend.db.file, { readonly: true });
  db.pragma('case_sensitive_like = ON');
  try {
    const prepared = statements.map((s) => [db.prepare(s.sql), s.params] as const);
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t = performance.now();
      for (const [statement, params] of prepared) statement.all(...(params as unknown[]));
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  } finally {
    db.close();
  }
}
