/**
 * The sources a portal serves (`GET /sources/`, paged and filtered by name on the server), searchable, each
 * linking to its own explorer. Shown only when the server has such an index and it names more than one source;
 * a server without one (404) shows nothing.
 */
import { useState } from 'preact/hooks';
import { useLoad } from '../hooks.js';
import { formatCount } from '../format.js';
import { ErrorMessage } from './Problem.js';
import { Pager } from './Pager.js';
import { SourceNameForm } from './SourceNameForm.js';

export interface SourceEntry {
  name: string;
  kind: string;
  api: string;
  explorer: string;
  optimade?: string;
  nodes?: number | null;
  aiida_version?: string | null;
  open?: boolean;
}

interface SourcePage {
  sources: SourceEntry[];
  total: number;
  page: number;
  perpage: number;
}

const PERPAGE = 20;

/** Where no index was found: asked once per page load, not on every visit of the home page. */
const absent = new Set<string>();

/** The first of `urls` that answers JSON; undefined when none has an index (each answered 404). */
async function fetchIndex(
  urls: string[],
  query: string,
  signal: AbortSignal,
): Promise<SourcePage | undefined> {
  for (const url of urls) {
    if (absent.has(url)) continue;
    const response = await fetch(`${url}?${query}`, { headers: { Accept: 'application/json' }, signal });
    if (response.status === 404) {
      absent.add(url);
      continue;
    }
    if (!response.ok)
      throw new Error(`${response.status}: the index of sources at ${url} answered ${response.statusText}`);
    const body = (await response.json()) as Partial<SourcePage>;
    if (!Array.isArray(body.sources)) throw new Error(`The answer of ${url} is not an index of sources.`);
    return {
      sources: body.sources,
      total: body.total ?? body.sources.length,
      page: body.page ?? 1,
      perpage: body.perpage ?? PERPAGE,
    };
  }
  return undefined;
}

export function SourceIndex({ urls }: { urls: string[] }) {
  const [name, setName] = useState('');
  const [page, setPage] = useState(1);
  const query = new URLSearchParams({ page: String(page), perpage: String(PERPAGE) });
  if (name !== '') query.set('name', name);
  const loaded = useLoad(
    (signal) => (urls.length === 0 ? Promise.resolve(undefined) : fetchIndex(urls, query.toString(), signal)),
    [urls.join(' '), query.toString()],
  );
  // The index decides whether it is shown: more than one source, or a search that was narrowed.
  const [many, setMany] = useState(false);
  if (loaded.state === 'ok' && loaded.data && loaded.data.total > 1 && !many) setMany(true);
  // Before the index has shown several sources, nothing is said: a failure then is a server without one.
  if (!many) return null;
  return (
    <section class="sources" aria-labelledby="sources-title">
      <h2 id="sources-title">Sources served here</h2>
      <SourceNameForm
        onFind={(found) => {
          setPage(1);
          setName(found);
        }}
      />
      {loaded.state === 'error' ? (
        <ErrorMessage error={loaded.error} what="the index of sources" onRetry={loaded.retry} />
      ) : loaded.state === 'loading' ? (
        <p class="loading">Loading the sources…</p>
      ) : loaded.data === undefined || loaded.data.sources.length === 0 ? (
        <p>No source's name contains “{name}”.</p>
      ) : (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table class="sources">
              <caption class="visually-hidden">Sources</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Nodes</th>
                  <th scope="col">AiiDA</th>
                  <th scope="col">API</th>
                </tr>
              </thead>
              <tbody>
                {loaded.data.sources.map((s) => (
                  <tr key={s.name}>
                    <td>
                      <a href={s.explorer}>{s.name}</a>
                    </td>
                    <td>{s.kind}</td>
                    <td class="num">{typeof s.nodes === 'number' ? formatCount(s.nodes) : '—'}</td>
                    <td>{s.aiida_version ?? '—'}</td>
                    <td>
                      <a href={s.api} class="small">
                        <code>{s.api}</code>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            perpage={loaded.data.perpage}
            total={loaded.data.total}
            onPage={setPage}
            label="Pages of sources"
          />
        </>
      )}
    </section>
  );
}
