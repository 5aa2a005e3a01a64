/**
 * Micro-benchmark of exact numbers (src/util/json-text.ts, exact-json.ts), in one process: reading the
 * attributes and extras texts of the databases given with JSON.parse (what decoding did before) and with
 * parseJsonText, split by whether a text holds a number to write exactly; and writing a page of 20 nodes
 * with JSON.stringify and with toJson. Each figure is the fastest of many short rounds, the two sides
 * alternating, so that other load on the machine spoils neither.
 *
 *   npx vite-node scripts/bench-json-text.ts DB.sqlite3 ...
 */
import BetterSqlite3 from 'better-sqlite3';
import { toJson } from '../src/util/exact-json.js';
import { mayHoldExact, parseJsonText } from '../src/util/json-text.js';

const ROUNDS = 41;

/** Nanoseconds per call of `fn` over `inputs`, the fastest of ROUNDS rounds of about `calls` calls. */
function measure<T>(inputs: T[], fn: (input: T) => unknown, calls: number): () => number {
  let best = Infinity;
  let sink = 0;
  const reps = Math.max(1, Math.round(calls / inputs.length));
  return () => {
    const start = process.hrtime.bigint();
    for (let k = 0; k < reps; k++) for (const input of inputs) sink += fn(input) === undefined ? 1 : 0;
    best = Math.min(best, Number(process.hrtime.bigint() - start) / (reps * inputs.length));
    if (sink < 0) console.log(sink);
    return best;
  };
}

function compare<T>(inputs: T[], before: (x: T) => unknown, after: (x: T) => unknown, calls: number) {
  const a = measure(inputs, before, calls);
  const b = measure(inputs, after, calls);
  let ta = 0;
  let tb = 0;
  for (let r = 0; r < ROUNDS; r++) [ta, tb] = [a(), b()];
  return `${ta.toFixed(0)} ns -> ${tb.toFixed(0)} ns (${((tb / ta - 1) * 100).toFixed(1)} %)`;
}

for (const file of process.argv.slice(2)) {
  const db = new BetterSqlite3(file, { readonly: true });
  const texts = (db.prepare('SELECT attributes, extras FROM db_dbnode').raw().all() as unknown[][])
    .flat()
    .filter((t): t is string => typeof t === 'string');
  const exact = texts.filter(mayHoldExact);
  const plain = texts.filter((t) => !mayHoldExact(t));
  const mean = (list: string[]) => Math.round(list.reduce((s, t) => s + t.length, 0) / (list.length || 1));
  console.log(
    `${file}: ${texts.length} texts; ${plain.length} without exact numbers (mean ${mean(plain)} chars), ` +
      `${exact.length} with (mean ${mean(exact)} chars)`,
  );
  // Cold: one text after the other, out of the processor's caches as a text of many is. Hot: each text read
  // eight times in a row, as a text just fetched from the database is in the cache when it is decoded.
  const hot =
    (read: (t: string) => unknown) =>
    (t: string): unknown => {
      for (let i = 0; i < 7; i++) read(t);
      return read(t);
    };
  const both = (list: string[]) =>
    `cold ${compare(list, JSON.parse, parseJsonText, 20_000)}; ` +
    `hot ${compare(list, hot(JSON.parse), hot(parseJsonText), 2_500)} per 8 reads`;
  console.log(`  read, without: ${both(plain)}`);
  if (exact.length > 0) console.log(`  read, with:    ${both(exact)}`);
  console.log(`  read, all:     ${both(texts)}`);
  const page = (list: string[], read: (t: string) => unknown) => ({
    data: {
      nodes: list.slice(0, 20).map((t, id) => ({ id, uuid: `${id}`.padStart(36, '0'), attributes: read(t) })),
    },
    id: null,
    method: 'GET',
    path: '/api/v4/nodes/',
  });
  const common = page(plain, JSON.parse);
  console.log(`  write a page of 20 nodes:  ${compare([common], JSON.stringify, toJson, 2_000)}`);
  if (exact.length > 0) {
    const marked = page(exact, parseJsonText);
    console.log(`  write such a page, marked: ${compare([marked], JSON.stringify, toJson, 2_000)}`);
  }
}
