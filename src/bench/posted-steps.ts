/**
 * Where the time of a posted query goes, step by step, each beside its floor: the explorer's grid asked as a
 * query never asked before (a limit of its own each time, so that no answer, plan, count or rows are kept),
 * in this process, on the storage the benchmark serves. The HTTP part (an empty route) is measured by the
 * load runs; this is what the route adds to it.
 */
import pg from 'pg';
import { bound, compileQuery, parseQueryDict, prepareQuery } from '../query/index.js';
import { recordFormatter } from '../rest/format.js';
import { postQueryBuilder } from '../rest/querybuilder.js';
import { sqliteWritesHttpDates } from '../storage/sqlite-extensions.js';
import type { StorageBackend } from '../storage/types.js';
import { toJson } from '../util/exact-json.js';
import { serverLikeConnection } from './floors.js';
import { median } from './median.js';

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
async function timed(f: (i: number) => unknown, rounds = ROUNDS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await f(i);
    times.push(performance.now() - start);
  }
  return Number(median(times)!.toFixed(3));
}

export interface StepOptions {
  /** A dictionary never asked before, at each call (default: `dict` with a limit of its own, from 900,000). */
  fresh?: () => Record<string, unknown>;
  /** The PostgreSQL database the backend reads: the floor of its statements, run straight by a client. */
  pgUrl?: string;
}

/** The steps of `dict` on `backend`, each round a dictionary never asked before. */
export async function postedSteps(
  backend: StorageBackend,
  dict: Record<string, unknown>,
  options: StepOptions = {},
): Promise<PostedStep[]> {
  const dialect = backend.db.dialect;
  let limit = 900_000;
  const fresh = options.fresh ?? (() => ({ ...dict, limit: limit++ }));
  const text = JSON.stringify(dict);
  const steps: PostedStep[] = [];
  const add = (step: string, ms: number, floorMs?: number, floor?: string) =>
    steps.push({ step, ms, ...(floorMs === undefined ? {} : { floorMs, floor }) });

  add('parse the body (JSON)', await timed(() => JSON.parse(text)));
  add(
    'validate and compile (no kept plan)',
    await timed(() => compileQuery(parseQueryDict(fresh()), dialect)),
    await timed(() => prepareQuery(dict, dialect)),
    'the plan kept',
  );

  // The statements, through the storage as the server runs them, and straight on the database file.
  const raw = serverLikeConnection(backend);
  const client = options.pgUrl
    ? new pg.Client({ connectionString: options.pgUrl, options: '-c TimeZone=UTC' })
    : undefined;
  await client?.connect();
  const direct = (sql: string, params: unknown[]): unknown =>
    raw
      ? raw
          .prepare(sql)
          .raw(true)
          .all(...params)
      : client!.query({ text: sql, values: params, rowMode: 'array' });
  const straightly = raw !== undefined || client !== undefined;
  try {
    // Compiled ahead of the timing: each round's statement is one never run before.
    const statements = (which: 'count' | 'select') =>
      Array.from({ length: ROUNDS }, () => {
        const compiled = prepareQuery(fresh(), dialect);
        return bound(compiled[which], compiled);
      });
    for (const which of ['count', 'select'] as const) {
      const through = statements(which);
      const ms = await timed((i) => backend.db.values(through[i]!));
      const straight = statements(which);
      const floorMs = straightly
        ? await timed((i) => direct(straight[i]!.sql, straight[i]!.params))
        : undefined;
      add(
        `${which} (SQL) through the storage`,
        ms,
        floorMs,
        raw ? 'the same SQL on a connection of this thread' : 'the same SQL from a client of this thread',
      );
    }
    // The records written as JSON by SQLite: what the server runs instead of the select, where it can.
    const answered = Object.keys((dict.project as Record<string, unknown> | undefined) ?? {});
    const records = () => {
      const compiled = prepareQuery(fresh(), dialect);
      const written = compiled.records?.(answered, sqliteWritesHttpDates());
      return written && bound(written, compiled);
    };
    if (records() !== undefined) {
      const through = Array.from({ length: ROUNDS }, () => records()!);
      const ms = await timed((i) => backend.db.values(through[i]!));
      const straight = Array.from({ length: ROUNDS }, () => records()!);
      add(
        'records written by SQLite (JSON) through the storage',
        ms,
        raw ? await timed((i) => direct(straight[i]!.sql, straight[i]!.params)) : undefined,
        'the same SQL on a connection of this thread',
      );
    }
    if (raw) {
      // What the order costs: the same rows read in no order.
      const s = statements('select')[0]!;
      const unordered = s.sql.replace(/ ORDER BY .*? LIMIT /, ' LIMIT ');
      if (unordered !== s.sql) {
        add('select (SQL), the same rows in no order', await timed(() => direct(unordered, s.params)));
      }
    }

    const compiled = prepareQuery(dict, dialect);
    const values = await backend.db.values(bound(compiled.select, compiled));
    add('decode the rows', await timed(() => values.map(compiled.decodeRow)));
    const rows = values.map(compiled.decodeRow);
    const tags = rows[0] === undefined ? [] : Object.keys(rows[0]);
    const format = () => {
      const data: Record<string, unknown[]> = {};
      for (const tag of tags) {
        const f = recordFormatter(true);
        data[tag] = rows.map((row) => f(row[tag] ?? {}));
      }
      return data;
    };
    add('format the records', await timed(format));
    const data = format();
    add(
      'write the JSON (exact numbers)',
      await timed(() => Buffer.from(toJson(data))),
      await timed(() => Buffer.from(JSON.stringify(data))),
      'JSON.stringify of the same data',
    );
    add(
      "all of it (the answer's data as the server makes it), never asked",
      await timed(() => postQueryBuilder(backend, fresh())),
    );
  } finally {
    raw?.close();
    await client?.end();
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
