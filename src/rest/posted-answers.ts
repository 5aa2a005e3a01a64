/**
 * Answers of posted QueryBuilder queries made once however many clients post the same text at once (every visitor
 * of the explorer's grid posts the same dictionary): the others wait for that one. Its data is written as JSON
 * bytes once, so that every waiting client's answer is those bytes between its own envelope's. Answers are kept
 * after that as whole answers, with GETs' (src/ops/kept-gets.ts): once for the machine, not in this process.
 */
import type { QueryLimits } from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';
import { toJson } from '../util/exact-json.js';
import { MadeOnce } from '../util/made-once.js';
import type { Envelope } from './engine.js';
import { keptVersion } from './kept-version.js';
import { postQueryBuilder, type QueryBuilderResult } from './querybuilder.js';

export interface PostedAnswer {
  /** The answer's `data`, or (when it was made for many) that written as JSON, in UTF-8. */
  data: QueryBuilderResult['data'] | Buffer;
  total: number;
  /** When made for many: its name in this process while it is made (the same name, the same bytes). */
  key?: string;
  /** The texts written around bytes of `data` (the envelope of the request that made it). */
  around?: Envelope;
}

const making = new MadeOnce<PostedAnswer>();
const limitKeys = new WeakMap<QueryLimits, string>();
let nextAnswer = 0;
let made = 0;

/**
 * The answer of the posted `text`, whose dictionary is `body()` (JSON.parse's output, parsed only when it must
 * run). Requests share a making only while the data is the same: an archive's identity, or a live database's data
 * version (a PostgreSQL server's snapshot, asked at most once a second; a SQLite file's size and time). `around`:
 * the request's envelope, which the database may write around the data (another request sharing the making may
 * have another).
 */
export async function postedAnswer(
  backend: StorageBackend,
  text: string,
  body: () => unknown,
  limits: QueryLimits,
  maxRows: number,
  around?: Envelope,
): Promise<PostedAnswer> {
  const version = await keptVersion(backend);
  // The body is JSON.parse's output: its plan is known by its text.
  if (version === undefined) return postQueryBuilder(backend, body(), limits, maxRows, around, true);
  let bounds = limitKeys.get(limits);
  if (bounds === undefined) limitKeys.set(limits, (bounds = JSON.stringify(limits)));
  const key = `${version}\u0000${maxRows}\u0000${bounds}\u0000${text}`;
  // Refusals throw to every waiting client alike, and the next request asks again.
  return making.run(key, async () => {
    const result = await postQueryBuilder(backend, body(), limits, maxRows, around, true);
    made++;
    const key = `p${nextAnswer++}`;
    if (Buffer.isBuffer(result.data))
      return { total: result.total, data: result.data, key, around: result.around };
    return { total: result.total, data: Buffer.from(toJson(result.data)), key };
  });
}

/** How many posted queries this process has run (tests: a kept or shared answer runs none). */
export function postedAnswersMade(): number {
  return made;
}
