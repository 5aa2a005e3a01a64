/**
 * The SQL floor as served: a query's statements, as the server ran them for one request, run straight by the
 * empty route's server (src/bench/empty-server.ts) at each request, with the bytes SQLite wrote sent as the
 * answer. At one client, statements served cost more than the same statements timed in a loop (the request's
 * other work and the client's take the caches, the cores are woken at each request), and so do the server's
 * own: this floor pays what they pay, with no work of Quarry's around them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { serverLikeConnectionTo, type Run, type SqliteFile } from './floors.js';

interface StatementsSpec {
  sqlite: SqliteFile;
  runs: Run[];
}

/** Writes what the empty route's server runs at `/statements?spec=PATH` (statements with JSON values only). */
export function writeStatementsSpec(path: string, sqlite: SqliteFile, runs: Run[]): void {
  const plain = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  for (const run of runs) {
    if (!run.statement.params.every(plain))
      throw new Error(`a statement with values JSON cannot hold: ${run.statement.sql.slice(0, 80)}`);
  }
  const spec: StatementsSpec = { sqlite, runs };
  writeFileSync(path, JSON.stringify(spec));
}

/**
 * The answer of the statements of the spec at `path` (opened once): run straight, in order; the answer is the
 * bytes the last one wrote (its first row's first value), or its rows as JSON.
 */
export function servedStatements(path: string): { answer(): Buffer; close(): void } {
  const spec = JSON.parse(readFileSync(path, 'utf8')) as StatementsSpec;
  const db = serverLikeConnectionTo(spec.sqlite);
  const prepared = spec.runs.map(({ statement, arrays }) => ({
    run: db.prepare(statement.sql).raw(arrays),
    params: statement.params,
  }));
  return {
    answer() {
      let rows: unknown[] = [];
      for (const { run, params } of prepared) rows = run.all(...params);
      const first = (rows[0] as unknown[] | undefined)?.[0];
      return Buffer.isBuffer(first) ? first : Buffer.from(JSON.stringify(rows));
    },
    close: () => db.close(),
  };
}
