/**
 * One search over one index file, and the merge of every source's answer: each index gives its matches' count
 * per node type and per element (exact, so the facets and the total are), and its first `window` results in
 * order; the merge keeps the page asked for. With words, results are ordered by bm25 (a UUID match first),
 * then newest first; without, newest first.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { beforeDeadline } from './deadline.js';
import { COMPOSED_TYPES } from './index-build.js';
import type { IndexFacts } from './index-file.js';
import type { SearchRequest } from './request.js';

/** A result as an index holds it, with the order it is merged in. */
export interface IndexRow {
  id: number;
  uuid: string;
  node_type: string;
  process_type: string | null;
  label: string;
  ctime_ms: number | null;
  formula: string | null;
  score: number;
}

export interface IndexAnswer {
  total: number;
  rows: IndexRow[];
  types: [string, number][];
  elements: [string, number][];
}

/** Statements by their text, per open index: a search of a shape seen before is not planned again. */
const prepared = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function statement(db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let own = prepared.get(db);
  if (own === undefined) prepared.set(db, (own = new Map()));
  let found = own.get(sql);
  if (found === undefined) {
    // The shapes are few (which conditions are given, not their values), but never more than a bound.
    if (own.size >= 64) own.clear();
    own.set(sql, (found = db.prepare(sql)));
  }
  return found;
}

/** The score of a match by UUID: before every word match (bm25 scores are negative, better is lower). */
const UUID_SCORE = -1e300;
/**
 * The score of a match by words: bm25 over the label, the description and the formula, a word in a label or a
 * formula weighing four times one in a description (a label says what a node is; a description says more).
 */
const WORD_SCORE = 'bm25(words, 4.0, 1.0, 4.0)';

/** The end of the range of strings that start with `prefix`. */
function afterPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

interface Plan {
  /** The WITH clause and its parameters (the matches by word and UUID), or none. */
  head: string;
  headParams: unknown[];
  from: string;
  where: string;
  params: unknown[];
  /** A result's score, and the results' order. */
  score: string;
  order: string;
  /** The WHERE clause of the counts (types and elements) and its parameters: the matches without their scores. */
  counted: string;
  countedParams: unknown[];
}

/**
 * The conditions other than words and UUIDs, on the `nodes` table or on the `tally` (each as `n`); `newest`:
 * on the nodes, kept from every index but the newest-first one (a unary + keeps SQLite from using an index).
 */
function conditionsOf(
  request: SearchRequest,
  on: 'nodes' | 'newest' | 'tally',
): { conditions: string[]; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const elementsOf = on === 'tally' ? 'tally_elements' : 'elements';
  const n = on === 'newest' ? '+n' : 'n';
  if (request.typePrefix !== undefined) {
    conditions.push(`${n}.type IN (SELECT type FROM types WHERE node_type >= ? AND node_type < ?)`);
    params.push(request.typePrefix, afterPrefix(request.typePrefix));
  }
  for (const element of request.elements) {
    conditions.push(`${n}.id IN (SELECT id FROM ${elementsOf} WHERE element = ?)`);
    params.push(element);
  }
  if (request.nelements !== undefined) {
    conditions.push(`${n}.nelements = ?`);
    params.push(request.nelements);
  }
  if (request.state === 'finished') conditions.push(`${n}.process_state = 'finished' AND n.exit_status = 0`);
  else if (request.state === 'failed')
    conditions.push(`${n}.process_state = 'finished' AND (n.exit_status IS NULL OR n.exit_status <> 0)`);
  else if (request.state !== undefined) {
    conditions.push(`${n}.process_state = ?`);
    params.push(request.state);
  }
  return { conditions, params };
}

function planOf(request: SearchRequest, newest = false): Plan {
  const { conditions, params } = conditionsOf(request, newest ? 'newest' : 'nodes');
  const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
  const hits: string[] = [];
  const ids: string[] = [];
  const headParams: unknown[] = [];
  if (request.match !== undefined) {
    hits.push(`SELECT rowid AS id, ${WORD_SCORE} AS score FROM words WHERE words MATCH ?`);
    ids.push('SELECT rowid FROM words WHERE words MATCH ?');
    headParams.push(request.match);
  }
  if (request.uuidPrefix !== undefined) {
    hits.push(`SELECT id, ${UUID_SCORE} AS score FROM uuids WHERE uuid >= ? AND uuid < ?`);
    ids.push('SELECT id FROM uuids WHERE uuid >= ? AND uuid < ?');
    headParams.push(request.uuidPrefix, afterPrefix(request.uuidPrefix));
  }
  if (hits.length === 0) {
    const order = 'n.ctime_ms DESC, n.id DESC';
    return {
      head: '',
      headParams,
      from: 'nodes AS n',
      where,
      params,
      score: '0',
      order,
      counted: where,
      countedParams: params,
    };
  }
  // Counting needs no score: the matches' ids are enough, without bm25 computed for each.
  const matched = `n.id IN (${ids.join(' UNION ALL ')})`;
  const counted = {
    counted: `WHERE ${[matched, ...conditions].join(' AND ')}`,
    countedParams: [...headParams, ...params],
  };
  if (request.uuidPrefix === undefined) {
    // Words only: the matches scored as they are read, only those the other conditions keep (no UUID match to
    // merge them with first, which cost a table of every match and its score).
    return {
      ...counted,
      head: '',
      headParams: [],
      from: 'words CROSS JOIN nodes AS n ON n.id = words.rowid',
      where: `WHERE ${['words MATCH ?', ...conditions].join(' AND ')}`,
      params: [request.match, ...params],
      score: WORD_SCORE,
      order: 'score, n.ctime_ms DESC, n.id DESC',
    };
  }
  return {
    ...counted,
    head: `WITH hit AS MATERIALIZED (${hits.join(' UNION ALL ')}), best AS (SELECT id, min(score) AS score FROM hit GROUP BY id)`,
    headParams,
    from: 'best JOIN nodes AS n ON n.id = best.id',
    where,
    params,
    score: 'best.score',
    order: 'best.score, n.ctime_ms DESC, n.id DESC',
  };
}

/** Nothing in an index of these facts can match `request` (a type, element or process it does not hold). */
export function cannotMatch(facts: IndexFacts, request: SearchRequest): boolean {
  if (request.empty) return true;
  if (request.elements.some((element) => !facts.elements.has(element))) return true;
  const prefix = request.typePrefix;
  const composed = request.elements.length > 0 || request.nelements !== undefined;
  return !facts.types.some(
    (type) =>
      (prefix === undefined || type.startsWith(prefix)) &&
      (request.state === undefined || type.startsWith('process.')) &&
      (!composed || COMPOSED_TYPES.has(type)),
  );
}

/** The matches of `request` in one index: counts, and the first `window` results. */
export function searchIndex(
  db: BetterSqlite3.Database,
  request: SearchRequest,
  window: number,
  /** When the search's time is up (ms since 1970): a statement still running then is stopped (SearchLate). */
  deadline = Number.POSITIVE_INFINITY,
): IndexAnswer {
  const counts = countIndex(db, request, deadline);
  return { ...counts, rows: counts.total === 0 ? [] : indexRows(db, request, window, deadline) };
}

/** The matches' count in one index, by node type and by element (exact). */
export function countIndex(
  db: BetterSqlite3.Database,
  request: SearchRequest,
  deadline = Number.POSITIVE_INFINITY,
): Omit<IndexAnswer, 'rows'> {
  if (request.empty) return { total: 0, types: [], elements: [] };
  if (!hasWords(request)) return tallied(db, request, deadline);
  const plan = planOf(request);
  const run = <T>(statement: () => T) => beforeDeadline(db, deadline, statement);
  // Grouped by type through the type index only when a type is asked for: otherwise reading every node in
  // that index's order costs a lookup per node, where a scan of the table and a sort of the few types do not.
  const grouped = request.typePrefix === undefined ? 'n.type + 0' : 'n.type';
  const types = run(() =>
    statement(
      db,
      `SELECT t.node_type, c.n FROM (SELECT n.type, count(*) AS n FROM nodes AS n ${plan.counted} GROUP BY ${grouped}) AS c
       JOIN types AS t ON t.type = c.type`,
    )
      .raw()
      .all(...plan.countedParams),
  ) as [string, number][];
  const total = types.reduce((sum, [, n]) => sum + n, 0);
  // Only structures and CIF files have elements: matches of other types need no count of them.
  const elements = !types.some(([type]) => COMPOSED_TYPES.has(type))
    ? []
    : (run(() =>
        statement(
          db,
          // The matches first, their elements by node (left to itself, SQLite read every element's row first).
          `SELECT e.element, count(*) FROM nodes AS n CROSS JOIN elements AS e ON e.id = n.id ${plan.counted} GROUP BY e.element`,
        )
          .raw()
          .all(...plan.countedParams),
      ) as [string, number][]);
  return { total, types, elements };
}

/**
 * The first `window` matches of `request` in one index, in order. Given how many of its nodes match, a search
 * without words reads its nodes newest first, past those that do not match, where fewer nodes are read so: an
 * index that finds the matches reads each (a lookup) and sorts them, the newest first reads about `window` times
 * the index's nodes over its matches (left to itself, SQLite read every match of a state or a number of elements
 * this way, 5 to 8 times slower on the bench's sources).
 */
export function indexRows(
  db: BetterSqlite3.Database,
  request: SearchRequest,
  window: number,
  deadline = Number.POSITIVE_INFINITY,
  counted?: { matches: number; nodes: number },
  /**
   * The last result the merge keeps so far (other sources have given enough better ones): rows that come after
   * it cannot be on the page, and are not read (a search without words reads no node older than it).
   */
  worst?: Pick<IndexRow, 'score' | 'ctime_ms'>,
): IndexRow[] {
  if (request.empty) return [];
  const words = hasWords(request);
  const newest = !words && counted !== undefined && counted.matches ** 2 > window * counted.nodes;
  const plan = planOf(request, newest);
  let where = plan.where;
  const bound: unknown[] = [];
  if (worst !== undefined && (words || worst.ctime_ms !== null)) {
    where = `${where === '' ? 'WHERE' : `${where} AND`} ${words ? `${plan.score} <= ?` : 'n.ctime_ms >= ?'}`;
    bound.push(words ? worst.score : worst.ctime_ms);
  }
  return beforeDeadline(db, deadline, () =>
    statement(
      db,
      `${plan.head} SELECT n.id, n.uuid, (SELECT node_type FROM types WHERE type = n.type) AS node_type, n.process_type,
         n.label, n.ctime_ms, n.formula, ${plan.score} AS score FROM ${plan.from} ${where} ORDER BY ${plan.order} LIMIT ?`,
    ).all(...plan.headParams, ...plan.params, ...bound, window),
  ) as IndexRow[];
}

/** The search matches words or a UUID (scored), not only conditions on its nodes. */
const hasWords = (request: SearchRequest) => request.match !== undefined || request.uuidPrefix !== undefined;

/**
 * The counts of a search without words nor UUID: read from the tally, a few rows, not from every node; without
 * conditions either, from the counts the index keeps.
 */
function tallied(
  db: BetterSqlite3.Database,
  request: SearchRequest,
  deadline: number,
): Omit<IndexAnswer, 'rows'> {
  const { conditions, params } = conditionsOf(request, 'tally');
  if (conditions.length === 0) return everything(db);
  const where = `WHERE ${conditions.join(' AND ')}`;
  return beforeDeadline(db, deadline, () => {
    const types = statement(
      db,
      `SELECT t.node_type, c.n FROM (SELECT n.type, sum(n.nodes) AS n FROM tally AS n ${where} GROUP BY n.type) AS c
       JOIN types AS t ON t.type = c.type`,
    )
      .raw()
      .all(...params) as [string, number][];
    const elements = !types.some(([type]) => COMPOSED_TYPES.has(type))
      ? []
      : (statement(
          db,
          `SELECT e.element, sum(n.nodes) FROM tally AS n JOIN tally_elements AS e ON e.id = n.id ${where} GROUP BY e.element`,
        )
          .raw()
          .all(...params) as [string, number][]);
    return { total: types.reduce((sum, [, n]) => sum + n, 0), types, elements };
  });
}

/** The facets of a search without conditions, as the index keeps them. */
function everything(db: BetterSqlite3.Database): Omit<IndexAnswer, 'rows'> {
  const types = statement(db, 'SELECT node_type, nodes FROM types WHERE nodes > 0').raw().all() as [
    string,
    number,
  ][];
  const elements = statement(db, 'SELECT element, nodes FROM element_counts').raw().all() as [
    string,
    number,
  ][];
  return { total: types.reduce((sum, [, n]) => sum + n, 0), types, elements };
}

/** Merge order: score, newest first, then by source and pk so that pages never overlap. */
export function byRank(a: { source: string; row: IndexRow }, b: { source: string; row: IndexRow }): number {
  return (
    a.row.score - b.row.score ||
    (b.row.ctime_ms ?? -Infinity) - (a.row.ctime_ms ?? -Infinity) ||
    (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) ||
    b.row.id - a.row.id
  );
}

/** A creation time in ISO 8601 (to the millisecond the index keeps). */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace('Z', '+00:00');
}
