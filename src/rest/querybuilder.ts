/**
 * POST /querybuilder/: run a `QueryBuilder.as_dict()` dictionary and shape the rows as the reference's
 * QueryBuilder resource does (one list per projected tag, `full_type` where it is known).
 */
import {
  DEFAULT_LIMITS,
  MAX_BODY_DEPTH,
  nestingDepth,
  type QueryLimits,
  type ResultRow,
} from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';
import { queryCount, queryRecords, queryRows, type Envelope } from './engine.js';
import { badRequest } from './errors.js';
import { recordFormatter } from './format.js';

export interface QueryBuilderResult {
  /**
   * One list of records per answered tag, or that written as JSON (UTF-8) by the database, between the texts
   * of `around` when it is given.
   */
  data: Record<string, Record<string, unknown>[]> | Buffer;
  total: number;
  /** The texts written around bytes of `data`. */
  around?: Envelope;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `maxRows`: most rows one answer may hold. A query without a limit that bounds its rows is counted first, so
 * a larger answer is refused before any row is read, instead of being read, sent between processes, decoded
 * and written in the serving thread. `around`: the answer's envelope, written around the data where the
 * database writes it (the answer is then one copy of its bytes). `json`: the body is JSON.parse's output (a
 * posted body), so its plan is known by its JSON text (src/query/plan-cache.ts, jsonPlanKey).
 */
export async function postQueryBuilder(
  backend: StorageBackend,
  body: unknown,
  limits?: QueryLimits,
  maxRows = Infinity,
  around?: Envelope,
  json = false,
): Promise<QueryBuilderResult> {
  if (!isObject(body)) {
    throw badRequest(
      `The body must be a QueryBuilder.as_dict() dictionary (a JSON object), got ${Array.isArray(body) ? 'an array' : typeof body}`,
    );
  }
  // Before anything walks the body (plan keys, validation, the compiler recurse over it): a body nested
  // 100,000 levels deep would overflow the stack.
  const bounds = limits ?? DEFAULT_LIMITS;
  if (nestingDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw badRequest(
      `The body nests more than ${MAX_BODY_DEPTH} levels of lists and objects; a QueryBuilder dictionary ` +
        `needs far fewer (filters nest at most ${bounds.maxFilterDepth} "and"/"or" levels, values at most ` +
        `${bounds.maxValueDepth} levels)`,
    );
  }
  if (!Array.isArray(body.path) || body.path.length === 0) {
    throw badRequest('The QueryBuilder dictionary needs a non-empty "path" list of vertices');
  }
  const last = body.path[body.path.length - 1] as unknown;
  const lastTag = isObject(last) && typeof last.tag === 'string' ? last.tag : undefined;
  if (lastTag === undefined) throw badRequest('The last vertex of "path" needs a "tag" string');
  if (body.project !== undefined && !isObject(body.project)) {
    throw badRequest('"project" must be an object mapping tags to lists of projections');
  }

  // `[{"*": {}}]` means "the entity": answered as all its columns. Tags projecting nothing are left out;
  // with no projection at all, the last vertex is answered, as the QueryBuilder itself would.
  const project: Record<string, unknown> = { ...((body.project as Record<string, unknown>) ?? {}) };
  const answered: string[] = [];
  for (const [tag, projections] of Object.entries(project)) {
    if (isStar(projections)) project[tag] = ['**'];
    if (!isEmpty(projections)) answered.push(tag);
  }
  if (answered.length === 0) {
    project[lastTag] = ['**'];
    answered.push(lastTag);
  }

  const dict = { ...body, project };
  // A limit no larger than an answer may be bounds the rows, and the count (which honours the limit and the
  // offset) is the number of rows read: no count statement is run. Without such a limit the query is counted
  // first, so that a larger answer is refused before any row is read.
  const bounded = typeof body.limit === 'number' && body.limit <= maxRows;
  let rows: ResultRow[] | undefined;
  let total: number;
  if (bounded) {
    const written = await queryRecords(backend, dict, answered, { limits, json }, around);
    if (written !== undefined) return { data: written.bytes, total: written.rows, ...(around && { around }) };
    rows = await queryRows(backend, dict, { limits, json });
    total = rows.length;
  } else {
    total = await queryCount(backend, dict, { limits, json });
    if (total > maxRows) {
      throw badRequest(
        `The query matches ${total} rows; this server answers at most ${maxRows} at once: add a "limit" (at most ${maxRows}) and page with "offset"`,
      );
    }
  }
  const data: Record<string, Record<string, unknown>[]> = {};
  if (total > 0) {
    rows ??= await queryRows(backend, dict, { limits, json });
    for (const tag of answered) {
      const format = recordFormatter(true);
      data[tag] = rows.map((row) => withoutNullFullType(format(row[tag] ?? {})));
    }
  }
  return { data, total };
}

function isStar(projections: unknown): boolean {
  return (
    Array.isArray(projections) &&
    projections.length === 1 &&
    isObject(projections[0]) &&
    Object.keys(projections[0]).length === 1 &&
    isObject(projections[0]['*']) &&
    Object.keys(projections[0]['*'] as object).length === 0
  );
}

const isEmpty = (projections: unknown) =>
  projections === undefined ||
  projections === null ||
  (Array.isArray(projections) && projections.length === 0);

function withoutNullFullType(record: Record<string, unknown>): Record<string, unknown> {
  if (record.full_type === null) delete record.full_type;
  return record;
}

/** The bytes of an answer's data, without the texts written around them. */
export function dataBytes(data: Buffer, around: Envelope | undefined): Buffer {
  if (around === undefined) return data;
  return data.subarray(Buffer.byteLength(around.head), data.length - Buffer.byteLength(around.tail));
}
