/** Replay recorded requests against Quarry in-process and judge each answer by the conformance rules. */
import type { FastifyInstance } from 'fastify';
import { zoneDifference } from './bz-compare.js';
import { cifDifference, isCif } from './cif-compare.js';
import { errorMessage, firstDiff, mediaType, normalise, sortLists } from './compare.js';
import { caseFiles, readLines } from './corpus.js';
import { EXPECTATIONS } from './expectations.js';
import { numberKindDifference } from './number-kinds.js';
import { endpointOf, inScope } from './scope.js';

export { ARCHIVES } from './corpus.js';

export interface RecordedRequest {
  id: string;
  method: string;
  path: string;
  body?: unknown;
}

export interface Golden {
  request: RecordedRequest;
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
  /** The recorded line, whose number texts say which numbers the reference wrote as floats. */
  line?: string;
}

export interface Verdict {
  id: string;
  endpoint: string;
  inScope: boolean;
  agree: boolean;
  /** Named in the expectations table (a deliberate, documented difference). */
  expected: boolean;
  problem?: string;
}

const readJsonl = <T>(file: string): T[] => readLines(file).map((l) => JSON.parse(l) as T);

const readGolden = (file: string): Golden[] =>
  readLines(file).map((line) => ({ ...(JSON.parse(line) as Golden), line }));

/**
 * The recorded requests of one data set and the reference's answers: those served from the archive, or with
 * `answers: 'psql'` those served from the PostgreSQL profile holding the same data.
 */
export function loadArchiveCase(name: string, answers: 'archive' | 'psql' = 'archive') {
  const files = caseFiles(name);
  if (files === undefined) return undefined;
  const golden = answers === 'psql' ? files.psqlGolden : files.golden;
  if (golden === undefined) return undefined;
  const psql =
    files.psqlGolden === undefined
      ? new Map<string, Golden>()
      : new Map(readGolden(files.psqlGolden).map((g) => [g.request.id, g]));
  return {
    archive: files.archive,
    requests: readJsonl<RecordedRequest>(files.requests),
    golden: readGolden(golden),
    psql,
  };
}

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  json: unknown;
  raw: Buffer;
}

async function send(app: FastifyInstance, req: RecordedRequest): Promise<Answer> {
  const res = await app.inject({
    method: req.method as 'GET',
    url: req.path,
    ...(req.body !== undefined
      ? { payload: JSON.stringify(req.body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(res.headers))
    headers[k.toLowerCase()] = v === undefined ? undefined : String(v);
  let json: unknown;
  try {
    json = res.body === '' ? null : JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers, json, raw: res.rawPayload };
}

function compareHeaders(golden: Golden, answer: Answer): string | undefined {
  const g = golden.headers;
  if ((g['x-total-count'] ?? undefined) !== answer.headers['x-total-count']) {
    return `X-Total-Count ${g['x-total-count']} != ${answer.headers['x-total-count']}`;
  }
  if (mediaType(g['content-type']) !== mediaType(answer.headers['content-type'])) {
    return `Content-Type ${g['content-type']} != ${answer.headers['content-type']}`;
  }
  if ((g['content-disposition'] ?? undefined) !== answer.headers['content-disposition']) {
    return `Content-Disposition ${g['content-disposition']} != ${answer.headers['content-disposition']}`;
  }
  const link = (v: string | null | undefined) => (v ? normalise(v) : undefined);
  if (link(g.link) !== link(answer.headers.link)) return `Link ${g.link} != ${answer.headers.link}`;
  if (g.allow) {
    const methods = (v: string | undefined) =>
      (v ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort()
        .join(', ');
    if (methods(g.allow) !== methods(answer.headers.allow))
      return `Allow ${g.allow} != ${answer.headers.allow}`;
  }
  return undefined;
}

/** Judge an answer against a golden one by rules 1, 2, 4 and 5 of the conformance README. */
export function judgeAgainst(
  golden: Golden,
  answer: Answer,
  unordered: boolean,
  ulps = 0,
): string | undefined {
  if (golden.status !== answer.status) return `status ${golden.status} != ${answer.status}`;
  const headerProblem = compareHeaders(golden, answer);
  if (headerProblem) return headerProblem;
  if (golden.status >= 400) {
    if (golden.body === null) return undefined;
    const message = errorMessage(answer.json);
    return typeof message === 'string' && message !== '' ? undefined : 'error answer without a message';
  }
  const body = golden.body as { base64?: string } | null;
  if (body === null) return answer.raw.length === 0 ? undefined : 'expected an empty body';
  if (body && typeof body === 'object' && typeof body.base64 === 'string') {
    const expected = Buffer.from(body.base64, 'base64');
    if (expected.subarray(0, 5).toString() === '%PDF-') {
      return answer.raw.subarray(0, 5).toString() === '%PDF-' ? undefined : 'expected a PDF';
    }
    // A rendered plot: a PNG of the same size in pixels (the drawing is Quarry's own, not matplotlib's).
    if (expected.subarray(1, 4).toString() === 'PNG') {
      const size = (png: Buffer) =>
        png.length > 24 ? `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}` : '';
      if (answer.raw.subarray(1, 4).toString() !== 'PNG') return 'expected a PNG';
      return size(expected) === size(answer.raw)
        ? undefined
        : `PNG of ${size(answer.raw)}, expected ${size(expected)}`;
    }
    if (isCif(expected.toString())) return cifDifference(expected.toString(), answer.raw.toString());
    return expected.equals(answer.raw)
      ? undefined
      : `bytes differ (${expected.length} vs ${answer.raw.length})`;
  }
  const [goldenCif, answerCif, cifProblem] = withoutCifDownload(golden.body, answer.json);
  if (cifProblem) return cifProblem;
  const [goldenBody, answerBody, zoneProblem] = withoutZone(goldenCif, answerCif);
  if (zoneProblem) return zoneProblem;
  const a = normalise(withoutVersion(goldenBody));
  const b = normalise(withoutVersion(answerBody));
  return firstDiff(unordered ? sortLists(a) : a, unordered ? sortLists(b) : b, 'body', ulps);
}

/**
 * `download=false` answers carry the exported file as `data.download.data`: a CIF there is compared by content,
 * the rest of the answer as usual.
 */
function withoutCifDownload(golden: unknown, answer: unknown): [unknown, unknown, string | undefined] {
  const text = (body: unknown) =>
    (body as { data?: { download?: { data?: unknown } } } | null)?.data?.download?.data;
  const expected = text(golden);
  if (typeof expected !== 'string' || !isCif(expected)) return [golden, answer, undefined];
  const actual = text(answer);
  if (typeof actual !== 'string') return [golden, answer, 'expected a CIF in data.download.data'];
  const blank = (body: unknown) => {
    const b = body as { data: { download: Record<string, unknown> } };
    return { ...b, data: { ...b.data, download: { ...b.data.download, data: '(CIF)' } } };
  };
  return [blank(golden), blank(answer), cifDifference(expected, actual)];
}

/** A Brillouin zone in derived properties is compared as a solid, the rest of the answer as usual. */
function withoutZone(golden: unknown, answer: unknown): [unknown, unknown, string | undefined] {
  type Body = { data?: { derived_properties?: { faces_data?: unknown } } } | null;
  const zone = (body: unknown) => (body as Body)?.data?.derived_properties?.faces_data;
  const expected = zone(golden);
  if (expected === undefined) return [golden, answer, undefined];
  const actual = zone(answer);
  if (actual === undefined) return [golden, answer, 'expected faces_data'];
  const blank = (body: unknown) => {
    const b = body as { data: { derived_properties: Record<string, unknown> } };
    return {
      ...b,
      data: { ...b.data, derived_properties: { ...b.data.derived_properties, faces_data: '(zone)' } },
    };
  };
  return [blank(golden), blank(answer), zoneDifference(expected as never, actual as never)];
}

/** Rule 6: `AiiDA_version` of /server/ says which software answered; it is not compared. */
function withoutVersion(body: unknown): unknown {
  const data = (body as { data?: Record<string, unknown> } | null)?.data;
  if (!data || typeof data !== 'object' || !('AiiDA_version' in data)) return body;
  const { AiiDA_version: _ignored, ...rest } = data;
  return { ...(body as object), data: rest };
}

export async function replayArchive(
  app: FastifyInstance,
  archiveCase: NonNullable<ReturnType<typeof loadArchiveCase>>,
): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < archiveCase.requests.length; i++) {
    const req = archiveCase.requests[i] as RecordedRequest;
    const golden = archiveCase.golden[i] as Golden;
    const endpoint = endpointOf(req.method, req.path);
    const answer = await send(app, req);
    const expectation = EXPECTATIONS[req.id];
    const unordered = endpoint === 'processes/<id>/report';
    let problem: string | undefined;
    const applies =
      expectation !== undefined &&
      (golden.status === 500 ||
        ('always' in expectation && expectation.always === true) ||
        ('when' in expectation && expectation.when?.(golden) === true));
    if (expectation && applies) {
      problem = judgeExpected(expectation, answer, archiveCase.psql.get(req.id), req.path, unordered);
    } else if (golden.status === 500) {
      problem = `the reference crashed (500) and no expectation is recorded; Quarry answered ${answer.status}`;
    } else {
      // Computed numbers may differ in their last digits (the reference's libm pow, numpy's inverse).
      const computed =
        endpoint === 'nodes/<id>/download' || endpoint === 'nodes/<id>/contents/derived_properties';
      problem = judgeAgainst(golden, answer, unordered, computed ? 64 : 0);
      // Same values; and the same types of numbers, which JSON.parse cannot tell apart (240.0 is a float).
      if (!problem && golden.line && answer.json !== undefined && answer.json !== null && !unordered)
        problem = numberKindDifference(golden.line, answer.raw.toString('utf8'));
    }
    if (answer.status === 500) problem = problem ?? `Quarry answered ${answer.status}`;
    verdicts.push({
      id: req.id,
      endpoint,
      inScope: inScope(endpoint, req.id),
      agree: !problem,
      expected: !!expectation,
      problem,
    });
  }
  return verdicts;
}

function judgeExpected(
  expectation: (typeof EXPECTATIONS)[string],
  answer: Answer,
  psql: Golden | undefined,
  path: string,
  unordered: boolean,
): string | undefined {
  switch (expectation.kind) {
    case 'status': {
      if (answer.status !== expectation.status) return `expected ${expectation.status}, got ${answer.status}`;
      const message = errorMessage(answer.json);
      return typeof message === 'string' && message !== '' ? undefined : 'error answer without a message';
    }
    case 'psql':
      if (psql && psql.status === 200) return judgeAgainst(psql, answer, unordered);
      return answer.status === 200 ? undefined : `expected 200, got ${answer.status}`;
    case 'ok':
      if (answer.status !== 200)
        return `expected 200, got ${answer.status}: ${JSON.stringify(answer.json)?.slice(0, 200)}`;
      return expectation.check?.(answer, path);
  }
}
