/**
 * `GET /search/`: one search over every source served (docs/search.md), read from the sources' search
 * indexes, never from their databases; and `GET /search/sources`: every source's figures from its index. Both
 * at the server's root, on a portal and on a single-source server alike.
 *
 * Searches take turns in a lane of their own: a few run at once (each yields between sources), others wait
 * until their request's time limit, and past a bound on waiting ones a search is refused at once with 503 and
 * Retry-After. A search that runs past the time limit is stopped between two sources (503). A source whose
 * index is known not to hold what is asked (no such node type, element or process) is not read at all, and
 * answers are kept (answer-cache.ts): a search asked again over the same indexes is not run again. So are its
 * counts apart from its pages: another page of a search (or the same one with more results a page) reads only
 * the sources that have matches, and only their results.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { mountOf } from '../http/mount.js';
import { baseUrl } from '../http/origin.js';
import { QueryTimeoutError } from '../storage/types.js';
import { beforeDeadline, SearchLate } from './deadline.js';
import { indexEveryCopy } from './index-file.js';
import { SearchIndexes } from './indexes.js';
import { AnswerCache } from './answer-cache.js';
import { SearchLane } from './lane.js';
import { parseSearch, SearchInputError, type SearchRequest } from './request.js';
import { byRank, cannotMatch, countIndex, indexRows, isoTime, type IndexRow } from './run.js';

/** Searches running at once; each runs its sources' statements in turns between other requests. */
const RUNNING = 4;
/** Searches waiting at most; more are refused at once. */
const WAITING = 64;
/** How long a search waits for sources being indexed before it answers without them. */
const LEARNING_WAIT_MS = 1_000;
/** How long a search reads indexes before it lets other requests in (it yields between two sources). */
const SLICE_MS = 8;

/** What a search counts, whatever page of it is asked: kept apart from its pages. */
interface SearchCounts {
  total: number;
  /** By source (every source with matches, with their number), by node type and by element. */
  facets: SearchBody['facets'];
}

interface SearchBody {
  total: number;
  results: Record<string, unknown>[];
  facets: { source: Record<string, number>; type: Record<string, number>; elements: Record<string, number> };
  warnings: string[];
}

export function registerSearch(app: FastifyInstance, ctx: AppContext): SearchIndexes {
  indexEveryCopy();
  const indexes = new SearchIndexes(ctx.catalog);
  const lane = new SearchLane(RUNNING, WAITING);
  const answers = new AnswerCache<{ body: SearchBody; complete: boolean }>();
  const counted = new AnswerCache<SearchCounts>();
  app.addHook('onClose', (_app, done) => {
    indexes.close();
    done();
  });
  // One source served alone answers at the plain prefix; a portal's under their names.
  const at = (name: string) => (!ctx.catalog.dynamic && ctx.catalog.size === 1 ? '' : `/${name}`);

  app.get('/search', async (request, reply) => {
    const started = performance.now();
    const deadline = Date.now() + ctx.queryTimeoutMs;
    const parsed = parseSearch(queryOf(request), (name) => ctx.catalog.has(name));
    await indexes.learned(Math.min(LEARNING_WAIT_MS, ctx.queryTimeoutMs / 4));
    const sources = indexes.current();
    const base = rootOf(request, ctx);
    const answer = await answers.answer(
      keyOf(base, parsed, sources),
      async () => {
        const turn = await lane.enter(deadline);
        try {
          // The counts do not depend on the page, nor on the URL asked at.
          const countsKey = keyOf('', { ...parsed, page: 0, perPage: 0 }, sources);
          const made = await searchAll(parsed, sources, base, deadline, counted.peek(countsKey));
          if (made.complete && made.counts !== undefined) counted.keep(countsKey, made.counts);
          return made;
        } finally {
          turn.leave();
        }
      },
      (made) => made.complete,
    );
    return reply
      .header('Cache-Control', 'no-store')
      .send({ ...answer.body, took_ms: Math.round(performance.now() - started) });
  });

  /**
   * The answer over every source of `sources`; complete when no source was left out for now. With `known`
   * counts (the same search, another page), only the sources with matches are read, and only for results.
   */
  async function searchAll(
    parsed: SearchRequest,
    sources: ReturnType<SearchIndexes['current']>,
    base: string,
    deadline: number,
    known: SearchCounts | undefined,
  ): Promise<{ body: SearchBody; complete: boolean; counts?: SearchCounts }> {
    const window = parsed.page * parsed.perPage;
    const warnings: string[] = [];
    const merged: { source: string; row: IndexRow }[] = [];
    const facets = {
      source: {} as Record<string, number>,
      type: new Map<string, number>(),
      elements: new Map<string, number>(),
    };
    let total = 0;
    let complete = true;
    const wanted = parsed.sources === undefined ? undefined : new Set(parsed.sources);
    let pending = 0;
    let worst: IndexRow | undefined;
    let turnStarted = performance.now();
    for (const { name, state } of sources) {
      if (wanted !== undefined && !wanted.has(name)) continue;
      if (state === undefined) {
        pending += 1;
        continue;
      }
      if (state.state === 'failed') {
        warnings.push(`the source "${name}" is left out: ${state.problem}`);
        continue;
      }
      // What the index is known to hold says that nothing in it can match: it is not read.
      if (cannotMatch(state.facts, parsed)) continue;
      if (known !== undefined && known.facets.source[name] === undefined) continue;
      if (Date.now() > deadline) throw QueryTimeoutError.atLimit(ctx.queryTimeoutMs);
      const open = indexes.open(state.index);
      if (open === undefined) {
        complete = false;
        warnings.push(
          `the source "${name}" is left out: its search index cannot be opened now; search again`,
        );
        continue;
      }
      try {
        // The source's statements armed once with the time left, not each on its own.
        const { counts, rows } = beforeDeadline(open.db, deadline, () => {
          const counts = known === undefined ? countIndex(open.db, parsed, deadline) : undefined;
          const matches = counts?.total ?? known?.facets.source[name] ?? 0;
          const expected = { matches, nodes: state.figures.nodes };
          const rows = matches > 0 ? indexRows(open.db, parsed, window, deadline, expected, worst) : [];
          return { counts, rows };
        });
        if (counts !== undefined && counts.total > 0) facets.source[name] = counts.total;
        total += counts?.total ?? 0;
        for (const [type, n] of counts?.types ?? []) facets.type.set(type, (facets.type.get(type) ?? 0) + n);
        for (const [el, n] of counts?.elements ?? [])
          facets.elements.set(el, (facets.elements.get(el) ?? 0) + n);
        for (const row of rows) merged.push({ source: name, row });
        // Only the best `window` results can be on the page: the merge keeps no more than twice that, and the
        // last it keeps bounds what later sources read (a bound that only gets better: never too tight).
        if (
          rows.length > 0 &&
          merged.length >= window &&
          (worst === undefined || merged.length >= 2 * window)
        ) {
          merged.sort(byRank);
          merged.length = window;
          worst = merged[window - 1]!.row;
        }
      } catch (error) {
        if (error instanceof SearchLate) throw QueryTimeoutError.atLimit(ctx.queryTimeoutMs);
        complete = false;
        warnings.push(
          `the source "${name}" is left out: its search index cannot be read (${(error as Error).message})`,
        );
      } finally {
        open.release();
      }
      // Other requests are answered between two sources, once this search has had its slice of time.
      if (performance.now() - turnStarted > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        turnStarted = performance.now();
      }
    }
    if (pending > 0) {
      complete = false;
      warnings.push(
        `${pending} ${pending === 1 ? 'source is' : 'sources are'} being indexed and not searched yet; search again in a moment`,
      );
    }
    merged.sort(byRank);
    const results = merged.slice((parsed.page - 1) * parsed.perPage, window).map(({ source, row }) => ({
      source,
      uuid: row.uuid,
      pk: row.id,
      node_type: row.node_type,
      process_type: row.process_type,
      label: row.label,
      formula: row.formula,
      ctime: isoTime(row.ctime_ms),
      url: `${base}${at(source)}${ctx.prefix}/nodes/${row.uuid}/`,
      explorer_url: `${base}${at(source)}/nodes/${row.uuid}`,
    }));
    const counts = known ?? {
      total,
      facets: {
        source: facets.source,
        type: Object.fromEntries([...facets.type].sort(byCount)),
        elements: Object.fromEntries([...facets.elements].sort(byCount)),
      },
    };
    return { body: { total: counts.total, results, facets: counts.facets, warnings }, complete, counts };
  }

  app.get('/search/sources', async (request, reply) => {
    const query = queryOf(request);
    if (query !== '') {
      const key = new URLSearchParams(query).keys().next().value ?? query;
      throw new SearchInputError(`unknown parameter ${JSON.stringify(key)}; /search/sources takes none`);
    }
    await indexes.learned(Math.min(LEARNING_WAIT_MS, ctx.queryTimeoutMs / 4));
    const sources = indexes.current().map(({ name, kind, state }) => {
      const figures = state?.state === 'ready' ? state.figures : undefined;
      return {
        name,
        kind,
        indexed: figures !== undefined,
        nodes: figures?.nodes ?? null,
        structures: figures?.structures ?? null,
        processes: figures?.processes ?? null,
        export_version: figures?.exportVersion ?? null,
        aiida_version: figures?.aiidaVersion ?? null,
        archive_bytes: figures?.archiveBytes ?? null,
        problem: state?.state === 'failed' ? state.problem : null,
      };
    });
    return reply.header('Cache-Control', 'no-store').send({ sources, total: sources.length });
  });
  return indexes;
}

/**
 * What an answer depends on: the request, the URL it is asked at (results hold URLs) and which index file
 * each source has now (a file never changes: a replaced source has another one), hashed.
 */
function keyOf(base: string, parsed: SearchRequest, sources: ReturnType<SearchIndexes['current']>): string {
  const hash = createHash('sha256').update(`${base}\0${JSON.stringify(parsed)}`);
  for (const { name, state } of sources) {
    const held = state === undefined ? '?' : state.state === 'ready' ? state.index : `!${state.problem}`;
    hash.update(`\0${name}\0${held}`);
  }
  return hash.digest('base64');
}

const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);

function queryOf(request: FastifyRequest): string {
  const raw = request.raw.url ?? '';
  const q = raw.indexOf('?');
  return q === -1 ? '' : raw.slice(q + 1);
}

/** The server's root URL, also for a search asked under a source's path. */
function rootOf(request: FastifyRequest, ctx: AppContext): string {
  const base = baseUrl(request, ctx.origin);
  const mount = mountOf(request.raw)?.prefix ?? '';
  return mount !== '' && base.endsWith(mount) ? base.slice(0, -mount.length) : base;
}
