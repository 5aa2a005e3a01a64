/**
 * Where the time of a posted query goes, step by step, each beside its floor: the explorer's grid asked as a
 * query never asked before (a limit of its own each time, so that no answer, plan, count or rows are kept),
 * in this process, on the storage the benchmark serves. The HTTP part (an empty route) is measured by the
 * load runs; this is what the route adds to it.
 */
import BetterSqlite3 from 'better-sqlite3';
import { bound, compileQuery, parseQueryDict, prepareQuery } from '../query/index.js';
import { recordFormatter } from '../rest/format.js';
import { postQueryBuilder } from '../rest/querybuilder.js';
import { SqlitePool } from '../storage/sqlite-pool.js';
import type { StorageBackend } from '../storage/types.js';
import { toJson } from '../util/exact-json.js';

export interface PostedStep {
  step: string;
  /** Median, in ms. */
  ms: number;
  /** What the step cannot go below, in ms (the same work done the cheapest way), where there is one. */
  floorMs?: number;
  floor?: string;
}

const ROUNDS = 41;

/** Median ms of `rounds` runs of `f(i)` (i counts the rounds: each run may ask something new). */
async function median(f: (i: number) => unknown, rounds = ROUNDS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await f(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number(times[rounds >> 1]!.toFixed(3));
}

/** The steps of `dict` (a dictionary with a `limit`) on `backend`; `from` is the first limit never asked. */
export async function postedSteps(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  from = 900_000,
): Promise<PostedStep[]> {
  const dialect = backend.db.dialect;
  let limit = from;
  const fresh = () => ({ ...dict, limit: limit++ });
  const text = JSON.stringify(dict);
  const steps: PostedStep[] = [];
  const add = (step: string, ms: number, floorMs?: number, floor?: string) =>
    steps.push({ step, ms, ...(floorMs === undefined ? {} : { floorMs, floor }) });

  add('parse the body (JSON)', await median(() => JSON.parse(text)));
  add(
    'validate and compile (no kept plan)',
    await median(() => compileQuery(parseQueryDict(fresh()), dialect)),
    await median(() => prepareQuery(dict, dialect)),
    'the plan kept',
  );

  // The statements, through the storage as the server runs them, and straight on the database file.
  const raw =
    backend.db instanceof SqlitePool ? new BetterSqlite3(backend.db.file, { readonly: true }) : undefined;
  raw?.pragma('case_sensitive_like = ON');
  const direct = (sql: string, params: unknown[]) =>
    raw!
      .prepare(sql)
      .raw(true)
      .all(...params);
  try {
    // Compiled ahead of the timing: each round's statement is one never run before.
    const statements = (which: 'count' | 'select') =>
      Array.from({ length: ROUNDS }, () => {
        const compiled = prepareQuery(fresh(), dialect);
        return bound(compiled[which], compiled);
      });
    for (const which of ['count', 'select'] as const) {
      const through = statements(which);
      const ms = await median((i) => backend.db.values(through[i]!));
      const straight = statements(which);
      const floorMs = raw ? await median((i) => direct(straight[i]!.sql, straight[i]!.params)) : undefined;
      add(`${which} (SQL) through the storage`, ms, floorMs, 'the same SQL on a connection of this thread');
    }
    if (raw) {
      // What the order costs: the same rows read in no order.
      const s = statements('select')[0]!;
      const unordered = s.sql.replace(/ ORDER BY .*? LIMIT /, ' LIMIT ');
      if (unordered !== s.sql) {
        add('select (SQL), the same rows in no order', await median(() => direct(unordered, s.params)));
      }
    }

    const compiled = prepareQuery(dict, dialect);
    const values = await backend.db.values(bound(compiled.select, compiled));
    add('decode the rows', await median(() => values.map(compiled.decodeRow)));
    const rows = values.map(compiled.decodeRow);
    const format = () => {
      const f = recordFormatter(true);
      return rows.map((row) => f(row[Object.keys(row)[0]!] ?? {}));
    };
    add('format the records', await median(format));
    const data = { node: format() };
    add(
      'write the JSON (exact numbers)',
      await median(() => Buffer.from(toJson(data))),
      await median(() => Buffer.from(JSON.stringify(data))),
      'JSON.stringify of the same data',
    );
    add(
      'all of it (count, select, decode, format), never asked',
      await median(() => postQueryBuilder(backend, fresh())),
    );
  } finally {
    raw?.close();
  }
  return steps;
}

/** The steps as lines of text, each beside its floor. */
export function stepLines(steps: PostedStep[]): string {
  return steps
    .map(
      (s) =>
        `  ${s.step.padEnd(56)} ${s.ms.toFixed(3).padStart(8)}` +
        `${s.floorMs === undefined ? '' : `   floor ${s.floorMs.toFixed(3)} (${s.floor})`}\n`,
    )
    .join('');
}
