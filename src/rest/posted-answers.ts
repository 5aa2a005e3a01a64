/**
 * Answers of posted QueryBuilder queries, kept while the data they were read from is unchanged: clients repeat
 * the same few dictionaries (every visitor of the explorer's grid posts the same one). Kept by the body's text,
 * with the data already written as JSON bytes, so that a repeated query costs neither the database nor the
 * serialisation of thousands of rows (the answer is those bytes between the envelope's); the same query asked
 * by many clients at once runs once.
 */
import type { QueryLimits } from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';
import { KeptOnce } from '../util/bytes-kept.js';
import { toJson } from '../util/exact-json.js';
import { keptVersion } from './kept-version.js';
import { postQueryBuilder, type QueryBuilderResult } from './querybuilder.js';

export interface PostedAnswer {
  /** The answer's `data`, or (when it is kept) that written as JSON, in UTF-8. */
  data: QueryBuilderResult['data'] | Buffer;
  total: number;
  /** When the answer is kept: its name among kept answers in this process (the same name, the same bytes). */
  key?: string;
}

const KEPT_BYTES = 64 * 1024 * 1024;
const kept = new KeptOnce<PostedAnswer>(KEPT_BYTES, (a) => (a.data as Buffer).length);
const limitKeys = new WeakMap<QueryLimits, string>();
let nextAnswer = 0;

/**
 * The answer of the posted `text`, whose dictionary is `body()` (parsed only when it must run). An archive's
 * answers are kept for good; a live database's under its data version (a PostgreSQL server's snapshot, asked
 * at most once a second; a SQLite file's size and time), so that a write anywhere makes them asked again.
 */
export async function postedAnswer(
  backend: StorageBackend,
  text: string,
  body: () => unknown,
  limits: QueryLimits,
  maxRows: number,
): Promise<PostedAnswer> {
  const version = await keptVersion(backend);
  if (version === undefined) return postQueryBuilder(backend, body(), limits, maxRows);
  let bounds = limitKeys.get(limits);
  if (bounds === undefined) limitKeys.set(limits, (bounds = JSON.stringify(limits)));
  const key = `${version}\u0000${maxRows}\u0000${bounds}\u0000${text}`;
  return (
    kept.get(key) ??
    kept.run(
      key,
      async () => {
        const result = await postQueryBuilder(backend, body(), limits, maxRows);
        return { total: result.total, data: Buffer.from(toJson(result.data)), key: `p${nextAnswer++}` };
      },
      // Refusals throw, and are not kept.
      () => true,
    )
  );
}

/** What is kept (tests). */
export function postedAnswersKept(): { entries: number; bytes: number } {
  return kept.size;
}
