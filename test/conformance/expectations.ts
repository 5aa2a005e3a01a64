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
  | {
      kind: 'ok';
      reason: string;
      check?: (answer: AnswerView, path: string) => string | undefined;
      /** Applies where this says so, besides where the reference crashed. */
      when?: (golden: { status: number; headers: Record<string, string | null>; body: unknown }) => boolean;
    };

export interface AnswerView {
  status: number;
  headers: Record<string, string | undefined>;
  json: unknown;
  raw: Buffer;
}

const DATETIME_BUG = 'datetime comparisons in the query string crashed the reference; Quarry compares dates';

/** Every node of the answer has `field` on the right side of the bound given in the query string. */
function datesSatisfy({ json: body }: AnswerView, path: string): string | undefined {
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

/** The reference answered an empty file with a JSON envelope (`data: ""`). */
function emptyFileAnswer(golden: { headers: Record<string, string | null> }): boolean {
  return golden.headers['content-type'] === 'application/json';
}

/** A querybuilder answer whose rows under `tag` carry `keys` (other archives may have no such rows). */
function rowsWith(tag: string, keys: string[]) {
  return ({ json }: AnswerView): string | undefined => {
    const rows = (json as { data?: Record<string, Record<string, unknown>[]> }).data?.[tag] ?? [];
    const bad = rows.find((r) => keys.some((k) => !(k in r)));
    return bad ? `a row lacks one of ${keys.join(', ')}: ${JSON.stringify(bad)}` : undefined;
  };
}

function emptyDownload({ headers, raw }: AnswerView): string | undefined {
  if (headers['content-type'] !== 'application/octet-stream')
    return `content-type ${headers['content-type']}`;
  if (!headers['content-disposition']?.startsWith('attachment')) return 'no Content-Disposition: attachment';
  // The reference's X-Total-Count of its envelope, which clients read, comes with the download.
  if (headers['x-total-count'] !== '1') return `X-Total-Count ${headers['x-total-count']}, expected 1`;
  return raw.length === 0 ? undefined : `expected no bytes, got ${raw.length}`;
}

/** Linked nodes answered with the attributes asked for. */
function linkedWithAttributes({ json }: AnswerView): string | undefined {
  const list = ((json as { data?: { incoming?: unknown[] } }).data?.incoming ?? []) as Record<
    string,
    unknown
  >[];
  const bad = list.find(
    (n) => typeof n.attributes !== 'object' || n.attributes === null || !('value' in n.attributes),
  );
  return bad ? `a linked node lacks attributes.value: ${JSON.stringify(bad).slice(0, 120)}` : undefined;
}

/** A folder listing, as repo/list answers it. */
function folderListing({ json }: AnswerView): string | undefined {
  const data = (json as { data?: unknown }).data;
  return Array.isArray(data) &&
    data.every((e) => typeof e?.name === 'string' && /^(FILE|DIRECTORY)$/.test(e.type))
    ? undefined
    : `expected a list of {name, type}, got ${JSON.stringify(data).slice(0, 120)}`;
}

const REPO_DIR = 'repo/contents of a folder is a 400 saying to list it (the reference crashed)';
const REPO_MISSING = 'repo/list of a missing folder is a 404 (the reference crashed)';
const CALCJOB_QUOTED =
  'calcjob files read filename with the v4 grammar, so the quoted form works (the reference kept the quotes ' +
  'and crashed); a file or a missing path is a 404, as in repo/list';
const LINKS_ATTRIBUTES =
  'links with attributes=true&attributes_filter=… crashed the reference; Quarry answers the linked nodes with them';

const STATISTICS =
  'nodes/statistics crashed on archives (no date_trunc in SQLite); the PostgreSQL answer is expected';

const ALLOY =
  'structures with alloys or vacancies in formats that cannot express them are a 400 naming the reason';

const NO_DERIVED =
  'derived_properties of types without any crashed the reference; the answer is an empty object';
const emptyDerived = { kind: 'ok' as const, reason: NO_DERIVED, check: derivedIsEmpty };

function derivedIsEmpty({ json }: AnswerView): string | undefined {
  const derived = (json as { data?: { derived_properties?: unknown } }).data?.derived_properties;
  return JSON.stringify(derived) === '{}' ? undefined : `expected {}, got ${JSON.stringify(derived)}`;
}

export const EXPECTATIONS: Record<string, Expectation> = {
  ...Object.fromEntries(
    [
      'array0',
      'traj0',
      'xy0',
      'dict0',
      'dict1',
      'int0',
      'float0',
      'str0',
      'bool0',
      'list0',
      'sf0',
      'folder0',
      'remote0',
      'icode0',
      'pcode0',
      'data0',
    ].map((n) => [`node-${n}-derived`, emptyDerived]),
  ),
  'struct-alloy-download-cif': { kind: 'status', status: 400, reason: ALLOY },
  'struct-alloy-download-xsf': { kind: 'status', status: 400, reason: ALLOY },
  'struct-alloy-download-xyz': { kind: 'status', status: 400, reason: ALLOY },
  'err-in_limit-negative': {
    kind: 'status',
    status: 400,
    always: true,
    reason: 'a negative in_limit is refused with 400 (SQLite read it as no limit, PostgreSQL crashed)',
  },
  'nodes-statistics': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user22': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user23': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user24': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user1': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user2': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user1460': { kind: 'psql', reason: STATISTICS },
  'nodes-statistics-user-gt': {
    kind: 'status',
    status: 400,
    reason: 'statistics take user=<pk> only; user>1 is a 400',
  },
  'links-in-calcjob-attributes': { kind: 'ok', reason: LINKS_ATTRIBUTES, check: linkedWithAttributes },
  'links-in-wc-attributes': { kind: 'ok', reason: LINKS_ATTRIBUTES, check: linkedWithAttributes },
  'links-in-struct-attributes': { kind: 'ok', reason: LINKS_ATTRIBUTES, check: linkedWithAttributes },
  'links-in-code-attributes': { kind: 'ok', reason: LINKS_ATTRIBUTES, check: linkedWithAttributes },
  'links-in-icode-attributes': { kind: 'ok', reason: LINKS_ATTRIBUTES, check: linkedWithAttributes },
  'repo-contents-calcjob-dir': { kind: 'status', status: 400, reason: REPO_DIR },
  'repo-contents-pcode-dir': { kind: 'status', status: 400, reason: REPO_DIR },
  'repo-contents-folder-dir': { kind: 'status', status: 400, reason: REPO_DIR },
  'repo-list-calcjob-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-list-folder-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-list-sf-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-list-cif-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-list-upf-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-list-pcode-missing-dir': { kind: 'status', status: 404, reason: REPO_MISSING },
  'repo-contents-folder': {
    kind: 'ok',
    when: emptyFileAnswer,
    reason: 'an empty file is answered as an empty download (the reference answered a JSON envelope instead)',
    check: emptyDownload,
  },
  'repo-contents-folder-head': {
    kind: 'ok',
    when: emptyFileAnswer,
    reason: 'an empty file is answered as an empty download (the reference answered a JSON envelope instead)',
    check: emptyDownload,
  },
  'err-filter-type-mismatch': {
    kind: 'ok',
    reason:
      'a number column compared with a non-number matches nothing (the archive reference answered an empty list; on PostgreSQL it crashed)',
    check: ({ json }) =>
      ((json as { data?: { nodes?: unknown[] } }).data?.nodes ?? [1]).length === 0
        ? undefined
        : 'expected no nodes',
  },
  'process-report-unknown': {
    kind: 'status',
    status: 404,
    reason: 'the report of an unknown process is a 404',
  },
  'calcjob-input_files-filename': { kind: 'status', status: 404, reason: CALCJOB_QUOTED },
  'calcjob-input_files-dir': { kind: 'ok', reason: CALCJOB_QUOTED, check: folderListing },
  'calcjob-output_files-filename': { kind: 'status', status: 404, reason: CALCJOB_QUOTED },
  'calcjob-output_files-missing': { kind: 'status', status: 404, reason: CALCJOB_QUOTED },
  'calcjob-output_files-subdir-quoted': { kind: 'ok', reason: CALCJOB_QUOTED, check: folderListing },
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
  'err-limit-float': {
    kind: 'status',
    status: 400,
    always: true,
    reason:
      'a fractional limit is refused with 400 (the reference truncated it, Python int(): 2.5 read as 2)',
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
    check: rowsWith('cm', ['content', 'user_id']),
  },
};
