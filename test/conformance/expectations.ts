/**
 * Requests where Quarry deliberately answers differently from the recorded reference, by request id.
 * Each reason is also listed in docs/compatibility.md. A difference not named here fails the replay.
 */

/** Expectations apply where the reference crashed (500), or everywhere when `always` is set. */
export type Expectation =
  /** Bad input: Quarry answers this status with a message (the reference crashed with a 500 or accepted it). */
  | { kind: 'status'; status: number; reason: string; always?: boolean }
  /** Valid request the reference crashed on: the PostgreSQL reference's answer is the expected one. */
  | { kind: 'psql'; reason: string }
  /** Valid request the reference crashed on everywhere: a 200 whose content `check` verifies. */
  | { kind: 'ok'; reason: string; check?: (body: unknown, path: string) => string | undefined };

const DATETIME_BUG = 'datetime comparisons in the query string crashed the reference; Quarry compares dates';

/** Every node of the answer has `field` on the right side of the bound given in the query string. */
function datesSatisfy(body: unknown, path: string): string | undefined {
  const nodes = ((body as { data?: Record<string, unknown[]> }).data ?? {}) as Record<
    string,
    { [k: string]: unknown }[]
  >;
  const list = Object.values(nodes)[0] ?? [];
  const query = decodeURIComponent(path.split('?')[1] ?? '');
  for (const m of query.matchAll(/(ctime|mtime|time)(>=|<=|>|<)([0-9T:+-]+)/g)) {
    const [, field, op, text] = m as unknown as [string, string, string, string];
    const bound = new Date(/[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`).getTime();
    for (const item of list) {
      const t = new Date(String(item[field])).getTime();
      // Answers carry whole seconds; compare at that precision.
      const ok = { '>': t + 999 > bound, '<': t < bound, '>=': t + 999 >= bound, '<=': t <= bound }[op];
      if (!ok) return `${field} ${String(item[field])} does not satisfy ${op} ${text}`;
    }
  }
  return undefined;
}

export const EXPECTATIONS: Record<string, Expectation> = {
  'users-by-id': {
    kind: 'ok',
    reason: '/users/<id>/ crashed the reference (no loader for users); Quarry answers the user',
  },
  'users-unknown-id': {
    kind: 'status',
    status: 404,
    reason: 'an unknown user id is not found (404), not a crash',
  },
  'groups-filter-time-gt': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-ctime-gt': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-ctime-lt': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-ctime-ge-le': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-ctime-tz': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-mtime-gt': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-filter-combo': { kind: 'ok', reason: DATETIME_BUG, check: datesSatisfy },
  'nodes-full_type-no-pipe': {
    kind: 'ok',
    reason: 'a full_type without "|" (sent by the legacy Materials Cloud explorer) is read as <value>|%',
  },
  'nodes-post-not-allowed': {
    kind: 'status',
    status: 405,
    reason: 'POST to a GET-only endpoint is 405, not 500',
  },
  'err-orderby-unknown-field': {
    kind: 'status',
    status: 400,
    reason: 'an unknown column is a 400 naming the valid ones',
  },
  'err-filter-unknown-field': {
    kind: 'status',
    status: 400,
    reason: 'an unknown column is a 400 naming the valid ones',
  },
  'err-offset-negative': {
    kind: 'status',
    status: 400,
    reason: 'a negative offset is refused with 400 (SQLite read it as 0, PostgreSQL crashed)',
    always: true,
  },
  'computers-filter-id-in': {
    kind: 'status',
    status: 400,
    reason: '=in= with a single value is not a list; 400 says so (the reference crashed)',
  },
  'err-querybuilder-bad-body-list': {
    kind: 'status',
    status: 400,
    reason: 'a body that is not an object is a 400',
  },
  'err-querybuilder-bad-body-empty': {
    kind: 'status',
    status: 400,
    reason: 'a body without "path" is a 400',
  },
  'qb-extras-contains': {
    kind: 'psql',
    reason: 'JSON "contains" crashed on archives (SQLite); Quarry answers as the PostgreSQL reference',
  },
  'qb-logs-with-node': {
    kind: 'ok',
    reason: 'querybuilder paths over logs crashed the reference; Quarry answers them',
  },
  'qb-comments-with-node': {
    kind: 'ok',
    reason: 'querybuilder paths over comments crashed the reference; Quarry answers them',
  },
};
