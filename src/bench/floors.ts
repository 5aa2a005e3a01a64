/**
 * The two floors every figure is compared with, measured in the same run: an empty HTTP route (what HTTP
 * costs on this machine) and the raw data time of a request (what its data costs): the SQL it runs, straight
 * on the database, and the repository files it reads, straight from the storage's repository.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import { MMAP_BYTES } from '../storage/query-child.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import { loadHttpDate } from '../storage/sqlite-extensions.js';
import type { Repository, SqlStatement, StorageBackend } from '../storage/types.js';
import type { RequestKind } from './mix.js';
import { median } from './median.js';

/** A statement as the server ran it: rows as objects, or as arrays of values. */
export interface Run {
  statement: SqlStatement;
  arrays: boolean;
}

/** What serving one request touched: its SQL and the repository objects it read. */
export interface DataAccess {
  statements: Run[];
  objects: string[];
}

/** The data each variant of each kind touches, captured by serving it in-process through a recording storage. */
export async function recordAccesses(
  backend: StorageBackend,
  kinds: RequestKind[],
): Promise<Map<string, DataAccess[]>> {
  let current: DataAccess = { statements: [], objects: [] };
  const repository: Repository = {
    get: (key) => (current.objects.push(key), backend.repository.get(key)),
    close: async () => {},
  };
  const recording: StorageBackend = {
    ...backend,
    repository,
    db: {
      ...backend.db,
      dialect: backend.db.dialect,
      // Prototype methods (a live database's data version) are not copied by the spread above.
      ...(backend.db.dataVersion ? { dataVersion: backend.db.dataVersion.bind(backend.db) } : {}),
      all: (s) => (current.statements.push({ statement: s, arrays: false }), backend.db.all(s)),
      values: (s) => (current.statements.push({ statement: s, arrays: true }), backend.db.values(s)),
      close: async () => {},
    },
  };
  const app: FastifyInstance = await buildApp({ backends: [recording] });
  const out = new Map<string, DataAccess[]>();
  for (const kind of kinds) {
    const accesses: DataAccess[] = [];
    for (const [i, path] of kind.paths.entries()) {
      current = { statements: [], objects: [] };
      const r = await app.inject({
        method: kind.method,
        url: path,
        payload: kind.body as object | undefined,
        headers: kind.headers?.[i],
      });
      if (r.statusCode >= 400) throw new Error(`${kind.name}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      accesses.push(current);
    }
    out.set(kind.name, accesses);
  }
  await app.close();
  return out;
}

/**
 * A connection of this process to a SQLite storage's file, set up as the server's own connections are, for
 * statements timed straight on the database; undefined for other storages.
 */
export function serverLikeConnection(backend: StorageBackend): BetterSqlite3.Database | undefined {
  const sqlite = sqliteFileOf(backend);
  return sqlite === undefined ? undefined : serverLikeConnectionTo(sqlite);
}

/** A SQLite storage's file, and whether it never changes (an archive's); undefined for other storages. */
export function sqliteFileOf(backend: StorageBackend): SqliteFile | undefined {
  return backend.db instanceof SqlitePool
    ? { file: backend.db.file, unchanging: backend.kind === 'archive' }
    : undefined;
}

export interface SqliteFile {
  file: string;
  unchanging: boolean;
}

/** serverLikeConnection, by the file (the empty route's server opens one so, src/bench/empty-server.ts). */
export function serverLikeConnectionTo({ file, unchanging }: SqliteFile): BetterSqlite3.Database {
  const db = new BetterSqlite3(file, { readonly: true });
  db.pragma('case_sensitive_like = ON');
  // The statements that write a posted query's records call its function, as the server's connections do.
  loadHttpDate(db);
  // As the server reads an archive's database: keeping the lock and page cache between statements.
  if (unchanging) {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
  }
  return db;
}

/**
 * Median time, in milliseconds, of the data of one request: every variant's statements and files are run in
 * turn, `repeats` times over, and each round's time is divided by the number of variants.
 */
export async function dataFloor(
  backend: StorageBackend,
  accesses: DataAccess[],
  pgUrl?: string,
  repeats = 15,
): Promise<number | undefined> {
  if (accesses.length === 0) return undefined;
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl, options: '-c TimeZone=UTC' });
    await client.connect();
    try {
      return await rounds(backend, accesses, repeats, ({ statement: s, arrays }) =>
        client.query({ text: s.sql, values: s.params, ...(arrays ? { rowMode: 'array' } : {}) }),
      );
    } finally {
      await client.end();
    }
  }
  const db = serverLikeConnection(backend);
  if (db === undefined) return undefined;
  try {
    const prepared = new Map<string, BetterSqlite3.Statement>();
    const statement = (sql: string) => prepared.get(sql) ?? prepared.set(sql, db.prepare(sql)).get(sql)!;
    return await rounds(backend, accesses, repeats, ({ statement: s, arrays }) =>
      statement(s.sql)
        .raw(arrays)
        .all(...s.params),
    );
  } finally {
    db.close();
  }
}

/**
 * The median, over `repeats` rounds, of one round's time divided by its variants. A synchronous driver's
 * answer is not awaited: a microtask per statement would weigh on statements of a few microseconds.
 */
async function rounds(
  backend: StorageBackend,
  accesses: DataAccess[],
  repeats: number,
  run: (statement: Run) => unknown,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    for (const access of accesses) {
      for (const s of access.statements) {
        const answer = run(s);
        if (answer instanceof Promise) await answer;
      }
      if (access.objects.length > 0) await Promise.all(access.objects.map((key) => readObject(backend, key)));
    }
    times.push((performance.now() - t) / accesses.length);
  }
  return median(times)!;
}

/** All bytes of one repository object, read through the storage's repository. */
async function readObject(backend: StorageBackend, key: string): Promise<void> {
  const object = await backend.repository.get(key);
  if (!object) return;
  for await (const chunk of await object.stream()) void chunk;
}
