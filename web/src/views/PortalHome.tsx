/**
 * The portal's root page (a chunk of its own): a heading that says what is served, the search over every source,
 * then the sources in a table that sorts by any column, with the figures the server's search index knows of each
 * source without opening it (`GET /search/sources`). A server without those figures, or of one source, shows
 * what it showed before: the first source's home, with the index of sources of `GET /sources/`.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { useUrlParam } from '../url-state.js';
import { formatBytes, formatCount } from '../format.js';
import { sourcesFiguresApi } from '../search-state.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { SearchBox } from '../components/SearchBox.js';
import { SourceNameForm } from '../components/SourceNameForm.js';
import { ErrorMessage } from '../components/Problem.js';

export interface SourceFigures {
  name: string;
  kind: string;
  indexed: boolean;
  nodes: number | null;
  structures: number | null;
  processes: number | null;
  export_version: string | null;
  aiida_version: string | null;
  archive_bytes: number | null;
  problem: string | null;
}

/** The table's columns: what each shows and sorts by. */
const COLUMNS = [
  { key: 'name', title: 'Name', numeric: false },
  { key: 'export_version', title: 'Export version', numeric: false },
  { key: 'aiida_version', title: 'AiiDA', numeric: false },
  { key: 'nodes', title: 'Nodes', numeric: true },
  { key: 'structures', title: 'Structures', numeric: true },
  { key: 'processes', title: 'Processes', numeric: true },
  { key: 'archive_bytes', title: 'Size', numeric: true },
] as const;
type Key = (typeof COLUMNS)[number]['key'];

const PER_PAGE = 50;

/** undefined: the server has no figures of its sources (no search), so the page is the source's home. */
async function loadFigures(url: string, signal: AbortSignal): Promise<SourceFigures[] | undefined> {
  const response = await fetch(url, { headers: { Accept: 'application/json' }, signal });
  if (response.status === 404) return undefined;
  if (!response.ok)
    throw new Error(`${response.status}: the figures of the sources at ${url}: ${response.statusText}`);
  const body = (await response.json()) as { sources?: SourceFigures[] };
  if (!Array.isArray(body.sources)) throw new Error(`The answer of ${url} lists no sources.`);
  return body.sources;
}

/** Orders versions as numbers part by part (`0.9` before `0.13`, `main_0001` after them), nulls last. */
function compare(a: SourceFigures, b: SourceFigures, key: Key): number {
  const [x, y] = [a[key], b[key]];
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x).localeCompare(String(y), 'en', { numeric: true });
}

export default function PortalHome({ fallback }: { fallback: () => ComponentChildren }) {
  const { root } = useExplorer();
  const loaded = useLoad((signal) => loadFigures(sourcesFiguresApi(root), signal), [root]);
  if (loaded.state === 'loading') return <Loading what="Loading the sources" />;
  if (loaded.state === 'ok' && (loaded.data === undefined || loaded.data.length < 2))
    return <>{fallback()}</>;
  return (
    <div class="portal-home">
      <h1>Sources served here</h1>
      <SearchBox id="portal-search" class="search-main" />
      {loaded.state === 'error' ? (
        <ErrorMessage error={loaded.error} what="the sources" onRetry={loaded.retry} />
      ) : (
        <SourceTable sources={loaded.data!} />
      )}
    </div>
  );
}

function SourceTable({ sources }: { sources: SourceFigures[] }) {
  const { root } = useExplorer();
  const [sortParam, setSort] = useUrlParam('sort');
  const [name, setName] = useState('');
  const [page, setPage] = useState(1);
  const descending = sortParam?.startsWith('-') === true;
  const key = (COLUMNS.find((c) => c.key === sortParam?.replace(/^-/, ''))?.key ?? 'name') as Key;
  const shown = sources
    .filter((s) => s.name.toLowerCase().includes(name.toLowerCase()))
    .sort((a, b) => (descending ? -1 : 1) * compare(a, b, key) || compare(a, b, 'name'));
  const sum = (k: 'nodes' | 'structures' | 'processes') => sources.reduce((n, s) => n + (s[k] ?? 0), 0);
  const figure = (n: number | null) => (n === null ? '—' : formatCount(n));
  return (
    <section aria-labelledby="sources-title">
      <h2 id="sources-title">
        {formatCount(sources.length)} sources · {formatCount(sum('nodes'))} nodes ·{' '}
        {formatCount(sum('structures'))} structures
      </h2>
      <SourceNameForm
        label="Sources by name"
        onFind={(found) => {
          setPage(1);
          setName(found);
        }}
      />
      {shown.length === 0 ? (
        <p>No source's name contains “{name}”.</p>
      ) : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Sources, scrolls sideways">
            <table class="sources figures">
              <caption class="visually-hidden">Sources, sorted by {key}</caption>
              <thead>
                <tr>
                  {COLUMNS.map((c) => (
                    <th
                      key={c.key}
                      scope="col"
                      class={c.numeric ? 'num' : undefined}
                      aria-sort={c.key === key ? (descending ? 'descending' : 'ascending') : undefined}
                    >
                      <button
                        type="button"
                        class="sort"
                        onClick={() => {
                          // Text sorts A to Z first, figures largest first; the same column again, the other way.
                          const next =
                            c.key === key
                              ? descending
                                ? c.key
                                : `-${c.key}`
                              : c.numeric
                                ? `-${c.key}`
                                : c.key;
                          setSort(next === 'name' ? undefined : next);
                        }}
                      >
                        {c.title}
                        <span aria-hidden="true">{c.key === key ? (descending ? ' ▼' : ' ▲') : ''}</span>
                      </button>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {shown.slice((page - 1) * PER_PAGE, page * PER_PAGE).map((s) => (
                  <tr key={s.name} data-source={s.name}>
                    <td>
                      <a href={`${root}/${encodeURIComponent(s.name)}/`}>{s.name}</a>
                      {s.problem !== null && <div class="bad small">{s.problem}</div>}
                      {s.problem === null && !s.indexed && <div class="muted small">being indexed</div>}
                    </td>
                    <td data-figure="export-version">{s.export_version ?? '—'}</td>
                    <td data-figure="aiida-version">{s.aiida_version ?? '—'}</td>
                    <td class="num" data-figure="nodes">
                      {figure(s.nodes)}
                    </td>
                    <td class="num" data-figure="structures">
                      {figure(s.structures)}
                    </td>
                    <td class="num" data-figure="processes">
                      {figure(s.processes)}
                    </td>
                    <td class="num" data-figure="size">
                      {s.archive_bytes === null ? '—' : formatBytes(s.archive_bytes)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            perpage={PER_PAGE}
            total={shown.length}
            onPage={setPage}
            label="Pages of sources"
          />
        </>
      )}
    </section>
  );
}
