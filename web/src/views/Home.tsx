/** Home: what is served, how many nodes of which types, when they were made, by whom; and a search box. */
import { WholeDataset } from '../components/ExportDownload.js';
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, perMonth, userName } from '../format.js';
import type { NodeSummary, ServerInfo, Statistics, TypeCount, User } from '../types.js';
import { classifySearch } from '../url.js';
import { Await } from '../components/Await.js';
import { Link } from '../components/Link.js';
import { MonthChart } from '../components/MonthChart.js';
import { Problem } from '../components/Problem.js';
import { TypeTree } from '../components/TypeTree.js';
import { optimadeBase, servesOptimade } from '../optimade-base.js';
import { SourceIndex } from '../components/SourceIndex.js';
import { failedCount } from '../failed.js';
import { Lazy } from '../components/Lazy.js';

/** The portal's root page is a chunk of its own, loaded where it may be shown. */
const loadPortal = () => import('./PortalHome.js');

/**
 * At the root of a portal (a server whose sources come and go, so that its page names none, and that has an
 * index of them), with no source chosen (`?profile=`): the portal's page, which shows the first source's home
 * where the server serves one source only. Anywhere else (a server of the sources given on its command line,
 * with its menu of them), the source's home.
 */
export function Home() {
  const { params, index, root, serverRoot, sources } = useExplorer();
  if (root === serverRoot && !params.has('profile') && sources.length === 0 && index.length > 0)
    return <Lazy load={loadPortal} props={{ fallback: () => <SourceHome /> }} what="the sources" />;
  return <SourceHome />;
}

function SourceHome() {
  const { api, params, sources, index, root } = useExplorer();
  const server = useLoad((signal) => api.get<ServerInfo>('/server/', undefined, { signal }), [api]);
  const stats = useLoad((signal) => api.get<Statistics>('/nodes/statistics/', undefined, { signal }), [api]);
  const types = useLoad(
    (signal) => api.get<TypeCount>('/nodes/full_types_count/', undefined, { signal }),
    [api],
  );
  const users = useLoad((signal) => api.get<{ users: User[] }>('/users/', undefined, { signal }), [api]);
  // A source served at its own path (`/<name>/`) is named by it.
  const source =
    params.get('profile') ??
    sources[0] ??
    (root === '' ? api.base : decodeURIComponent(root.split('/').pop()!));

  return (
    <>
      <h1>{source}</h1>
      <SourceIndex urls={index} />
      <WholeDataset />
      <dl class="facts" aria-label="What is served">
        <div>
          <dt>Nodes</dt>
          <dd data-figure="total">
            {stats.state === 'ok'
              ? formatCount(stats.data.data.total)
              : stats.state === 'loading'
                ? '…'
                : '?'}
          </dd>
        </div>
        <div>
          <dt>AiiDA version of the data</dt>
          <dd data-figure="aiida-version">
            {server.state === 'ok' ? server.data.data.AiiDA_version : server.state === 'loading' ? '…' : '?'}
          </dd>
        </div>
        <div>
          <dt>API</dt>
          <dd>
            {server.state === 'ok'
              ? `v${server.data.data.API_major_version}.${server.data.data.API_minor_version}.${server.data.data.API_revision_version}`
              : '…'}
          </dd>
        </div>
        {servesOptimade(api) && (
          <div>
            <dt>OPTIMADE</dt>
            <dd>
              <a href={`${optimadeBase(api, root)}/info`} data-field="optimade-base">
                {optimadeBase(api, root)}
              </a>
            </dd>
          </div>
        )}
      </dl>
      {server.state === 'error' && (
        <Await loaded={server} what="the server's description">
          {() => null}
        </Await>
      )}
      <Search />
      <Shortcuts types={stats.state === 'ok' ? stats.data.data.types : undefined} />
      <div class="home-grid">
        <section aria-labelledby="types-title">
          <h2 id="types-title">Node types</h2>
          <Await loaded={types} what="the node types">
            {(answer) => <TypeTree root={answer.data} />}
          </Await>
        </section>
        <div>
          <section aria-labelledby="months-title">
            <h2 id="months-title">Created per month</h2>
            <Await loaded={stats} what="the statistics">
              {(answer) => <MonthChart months={perMonth(answer.data.ctime_by_day)} />}
            </Await>
          </section>
          <section aria-labelledby="users-title">
            <h2 id="users-title">Users</h2>
            <Await loaded={users} what="the users">
              {(answer) => (
                <ul class="plain">
                  {answer.data.users.map((user) => (
                    <li key={user.id}>
                      <Link path="/nodes" params={{ user: user.id }}>
                        {userName(user)}
                      </Link>
                      {user.institution ? <span class="muted"> · {user.institution}</span> : null}
                    </li>
                  ))}
                </ul>
              )}
            </Await>
          </section>
        </div>
      </div>
    </>
  );
}

/** One box for a UUID (or its start), a pk or label text: a single match opens the node, more list them. */
export function Search() {
  const { api, href, navigate } = useExplorer();
  const [text, setText] = useState('');
  const [said, setSaid] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function search(event: Event) {
    event.preventDefault();
    const term = classifySearch(text);
    setSaid(undefined);
    if (term === undefined)
      return setSaid('Type a UUID (or its start), a pk, a label, or a formula or elements (SiO2, Si O).');
    if (term.kind === 'label') return navigate(href('/nodes', { label: term.text }));
    setBusy(true);
    try {
      const query =
        term.kind === 'pk' ? `id=${term.pk}` : `uuid=like=${encodeURIComponent(`"${term.prefix}%"`)}&limit=2`;
      const answer = await api.get<{ nodes: NodeSummary[] }>('/nodes/', query);
      const nodes = answer.data.nodes;
      if (nodes.length === 1) navigate(href(`/nodes/${nodes[0]!.uuid}`));
      else if (nodes.length > 1 && term.kind === 'uuid') navigate(href('/nodes', { uuid: term.prefix }));
      else if (term.kind === 'pk' && text.trim().length >= 4) {
        // Digits may also start a UUID.
        const prefix = text.trim();
        const byUuid = await api.get<{ nodes: NodeSummary[] }>(
          '/nodes/',
          `uuid=like=${encodeURIComponent(`"${prefix}%"`)}&limit=2`,
        );
        const found = byUuid.data.nodes;
        if (found.length === 1) navigate(href(`/nodes/${found[0]!.uuid}`));
        else if (found.length > 1) navigate(href('/nodes', { uuid: prefix }));
        else setSaid(`No node has pk ${term.pk} or a UUID that starts with ${prefix}.`);
      } else if (term.kind === 'pk') setSaid(`No node has pk ${term.pk}.`);
      else setSaid(`No node's UUID starts with ${term.prefix}.`);
    } catch (error) {
      setSaid(error instanceof ApiError ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="search" role="search" onSubmit={search}>
      <label for="search-box">Find a node</label>
      <input
        id="search-box"
        type="search"
        value={text}
        placeholder="UUID, pk, label, or formula (SiO2, Si O)"
        onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit" disabled={busy}>
        Search
      </button>
      {said !== undefined && <Problem title="Search">{said}</Problem>}
    </form>
  );
}

/** The node types a scientist looks for first, each with its number: the sum of its types in the statistics. */
const SHORTCUTS = [
  { title: 'Structures', prefix: 'data.core.structure.', type: 'data.core.structure.%|' },
  { title: 'Band structures', prefix: 'data.core.array.bands.', type: 'data.core.array.bands.%|' },
  { title: 'Workflows', prefix: 'process.workflow.', type: 'process.workflow.%|%' },
];

function Shortcuts({ types }: { types?: Record<string, number> }) {
  const { api } = useExplorer();
  const failed = useLoad((signal) => failedCount(api, signal), [api]);
  const count = (prefix: string) =>
    types === undefined
      ? '…'
      : formatCount(Object.entries(types).reduce((n, [t, c]) => (t.startsWith(prefix) ? n + c : n), 0));
  return (
    <nav class="shortcuts" aria-label="Shortcuts">
      <ul>
        {SHORTCUTS.map((s) => (
          <li key={s.title}>
            <Link path="/nodes" params={{ type: s.type }}>
              <span class="shortcut-count" data-figure={`shortcut-${s.prefix}`}>
                {count(s.prefix)}
              </span>{' '}
              {s.title}
            </Link>
          </li>
        ))}
        <li>
          <Link path="/nodes" params={{ state: 'failed' }}>
            <span class="shortcut-count" data-figure="shortcut-failed">
              {failed.state === 'ok' ? formatCount(failed.data) : failed.state === 'loading' ? '…' : '?'}
            </span>{' '}
            Failed processes
          </Link>
        </li>
      </ul>
    </nav>
  );
}
