/**
 * The two floors every figure is compared with, measured in the same run: an empty HTTP route (what HTTP
 * costs on this machine) and the raw database time of the SQL a request runs (what its data costs).
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
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

/** Median time, in milliseconds, of running the statements once, straight on the database. */
export async function dataFloor(
  backend: StorageBackend,
  statements: SqlStatement[],
  pgUrl?: string,
  repeats = 30,
): Promise<number | undefined> {
  if (pgUrl) return postgresFloor(pgUrl, statements, repeats);
  if (!(backend.db instanceof SqliteWorkerPool)) return undefined;
  const db = new BetterSqlite3(backend.db.file, { readonly: true });
  db.pragma('case_sensitive_like = ON');
  try {
    const prepared = statements.map((s) => [db.prepare(s.sql), s.params] as const);
    return median(repeats, () => {
      for (const [statement, params] of prepared) statement.all(...(params as unknown[]));
    });
  } finally {
    db.close();
  }
}

async function postgresFloor(url: string, statements: SqlStatement[], repeats: number): Promise<number> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC' });
  await client.connect();
  try {
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t = performance.now();
      for (const s of statements) await client.query(s.sql, s.params);
      times.push(performance.now() - t);
    }
    return middle(times);
  } finally {
    await client.end();
  }
}

function median(repeats: number, run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  return middle(times);
}

function middle(times: number[]): number {
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
