/**
 * The search over every source (a chunk of its own, loaded when the page is opened): the results of the
 * server's `GET /search/` for the address's search, with facets (source, type, elements on a periodic table,
 * process state) that narrow it; every change is a new address, so the page survives a reload. Each result
 * opens the node in its own source's explorer.
 */
import { ApiError } from '../api.js';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, typeName } from '../format.js';
import {
  asksAnything,
  changed,
  currentSource,
  SEARCH_STATES,
  searchApi,
  searchApiQuery,
  searchQuery,
  searchStateFrom,
  SEARCH_PER_PAGE,
  type SearchState,
} from '../search-state.js';
import { DateTime } from '../components/DateTime.js';
import { Formula } from '../components/Formula.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ErrorMessage, Problem } from '../components/Problem.js';
import { SearchBox } from '../components/SearchBox.js';
import { PeriodicPicker } from '../components/PeriodicPicker.js';
import { ELEMENTS } from '../periodic.js';

const KNOWN = new Set(ELEMENTS);

export interface SearchResult {
  source: string;
  uuid: string;
  pk: number;
  node_type: string;
  process_type: string | null;
  label: string;
  formula: string | null;
  ctime: string;
  url: string;
  explorer_url: string;
}

export interface SearchAnswer {
  total: number;
  results: SearchResult[];
  facets: { source: Record<string, number>; type: Record<string, number>; elements: Record<string, number> };
  warnings: string[];
  took_ms?: number;
}

async function search(url: string, signal: AbortSignal): Promise<SearchAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json' }, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ApiError('The server cannot be reached; check the connection and retry.', undefined);
  }
  const body = (await response.json().catch(() => undefined)) as
    (Partial<SearchAnswer> & { message?: string }) | undefined;
  if (response.status === 404)
    throw new ApiError('This server does not serve a search over its sources (GET /search/).', 404);
  if (!response.ok)
    throw new ApiError(`${response.status}: ${body?.message ?? response.statusText}`, response.status);
  if (body === undefined || !Array.isArray(body.results) || typeof body.total !== 'number')
    throw new ApiError(`The answer of ${url} is not a search answer.`, response.status, 'server');
  return body as SearchAnswer;
}

export default function SearchPage() {
  const { root, params, navigate, sources, serverRoot } = useExplorer();
  const state = searchStateFrom(params, KNOWN);
  const go = (next: SearchState) => navigate(`${root}/search?${searchQuery(next, params)}`);
  const url = `${searchApi(root)}?${searchApiQuery(state)}`;
  const loaded = useLoad(
    (signal) => (asksAnything(state) ? search(url, signal) : Promise.resolve(undefined)),
    [url],
  );
  const source = currentSource(params, root, serverRoot, sources);

  return (
    <>
      <h1>Search</h1>
      <SearchBox id="search-page" current={state} source={source} key={url} class="search-main" />
      <div class="search-layout">
        <div>
          {!asksAnything(state) ? (
            <p>
              Type a UUID or its start, words of a label or a description, or a formula (<code>GaAs</code>,{' '}
              <code>Si O</code>); or choose elements below.
            </p>
          ) : loaded.state === 'loading' ? (
            <Loading what="Searching every source" />
          ) : loaded.state === 'error' ? (
            <ErrorMessage error={loaded.error} what="the search" onRetry={loaded.retry} />
          ) : loaded.data === undefined ? null : (
            <Results answer={loaded.data} state={state} go={go} />
          )}
        </div>
        <div class="search-facets">
          <h2 class="visually-hidden">Narrow the search</h2>
          <Facets state={state} answer={loaded.state === 'ok' ? loaded.data : undefined} go={go} />
        </div>
      </div>
    </>
  );
}

function Results({
  answer,
  state,
  go,
}: {
  answer: SearchAnswer;
  state: SearchState;
  go: (s: SearchState) => void;
}) {
  return (
    <section aria-labelledby="results-title" class="search-results">
      <h2 id="results-title">
        <span data-figure="search-total">{formatCount(answer.total)}</span>{' '}
        {answer.total === 1 ? 'match' : 'matches'}
        {state.sources.length > 0 ? ` in ${state.sources.join(', ')}` : ' in every source'}
      </h2>
      {answer.warnings.length > 0 && (
        <Problem title="Not every source was searched">
          <ul>
            {answer.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Problem>
      )}
      {answer.results.length === 0 ? (
        <p>Nothing matches. Fewer words or facets find more.</p>
      ) : (
        <ol class="results" start={(state.page - 1) * SEARCH_PER_PAGE + 1}>
          {answer.results.map((r) => (
            <li key={`${r.source}:${r.uuid}`} data-result={`${r.source}:${r.uuid}`}>
              <a href={r.explorer_url} class="result-title">
                {r.label === '' ? <span class="muted">(no label)</span> : r.label}
              </a>{' '}
              <span class="result-kind">{typeName(r.process_type ?? r.node_type)}</span>
              {r.formula !== null && (
                <>
                  {' · '}
                  <Formula formula={r.formula} />
                </>
              )}
              <div class="result-facts muted">
                <span class="result-source">{r.source}</span> · pk {r.pk} · <code>{r.uuid.slice(0, 8)}</code>{' '}
                · <DateTime value={r.ctime} />
              </div>
            </li>
          ))}
        </ol>
      )}
      <Pager
        page={state.page}
        perpage={SEARCH_PER_PAGE}
        total={Math.min(answer.total, 10_000)}
        onPage={(page) => go({ ...state, page })}
        label="Pages of results"
      />
    </section>
  );
}

function Facets({
  state,
  answer,
  go,
}: {
  state: SearchState;
  answer: SearchAnswer | undefined;
  go: (s: SearchState) => void;
}) {
  const sourceCounts = answer?.facets.source ?? {};
  const sourceNames = [...new Set([...Object.keys(sourceCounts), ...state.sources])].sort();
  const typeCounts = answer?.facets.type ?? {};
  const types = [...new Set([...Object.keys(typeCounts), ...(state.type === undefined ? [] : [state.type])])];
  const toggle = (list: string[], item: string) =>
    list.includes(item) ? list.filter((x) => x !== item) : [...list, item].sort();
  return (
    <>
      <fieldset class="facet">
        <legend>Source</legend>
        {sourceNames.length === 0 ? (
          <p class="muted">No source has a match.</p>
        ) : (
          sourceNames.map((name) => (
            <label key={name} class="facet-item">
              <input
                type="checkbox"
                checked={state.sources.includes(name)}
                onChange={() => go(changed(state, { sources: toggle(state.sources, name) }))}
              />{' '}
              {name} <span class="count">{formatCount(sourceCounts[name] ?? 0)}</span>
            </label>
          ))
        )}
      </fieldset>
      <fieldset class="facet">
        <legend>Type</legend>
        <label class="facet-item">
          <input
            type="radio"
            name="facet-type"
            checked={state.type === undefined}
            onChange={() => go(changed(state, { type: undefined }))}
          />{' '}
          any type
        </label>
        {types.map((type) => (
          <label key={type} class="facet-item">
            <input
              type="radio"
              name="facet-type"
              checked={state.type === type}
              onChange={() => go(changed(state, { type }))}
            />{' '}
            <span title={type}>{type.endsWith('.') ? typeName(type) : type}</span>{' '}
            {typeCounts[type] !== undefined && <span class="count">{formatCount(typeCounts[type])}</span>}
          </label>
        ))}
      </fieldset>
      <fieldset class="facet">
        <legend>Process state</legend>
        <select
          aria-label="Process state"
          value={state.state ?? ''}
          onChange={(event) => {
            const value = (event.currentTarget as HTMLSelectElement).value;
            go(changed(state, { state: value === '' ? undefined : (value as SearchState['state']) }));
          }}
        >
          <option value="">any state</option>
          {SEARCH_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </fieldset>
      <fieldset class="facet facet-elements">
        <legend>Elements (all of them)</legend>
        <PeriodicPicker
          chosen={state.elements}
          counts={answer?.facets.elements ?? {}}
          onToggle={(symbol) => go(changed(state, { elements: toggle(state.elements, symbol) }))}
        />
      </fieldset>
    </>
  );
}
