/** The node list: one page of nodes at a time, sorted and filtered as the URL says. */
import { useMemo } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, typeOptions, userName } from '../format.js';
import type { NodeSummary, TypeCount, User } from '../types.js';
import { listRequest, listStateFrom, listStateParams, PAGE_SIZES, type ListState } from '../url.js';
import { Await } from '../components/Await.js';
import { NodeTable } from '../components/NodeTable.js';
import { Pager } from '../components/Pager.js';
import { Lazy } from '../components/Lazy.js';

// Looks like a formula (`SiO2`) or element symbols (`Si O`): the chemical search (a chunk of its own) decides.
const MAYBE_CHEMISTRY = /^(([A-Z][a-z]?\d*)+|[A-Z][a-z]?(\s+[A-Z][a-z]?)*)$/;
const loadChemistry = () => import('../components/StructureMatches.js');

export function NodeList() {
  const { api, params, href, navigate } = useExplorer();
  const state = listStateFrom(params);
  const request = listRequest(state);
  const key = `${request.path}?${request.query}`;
  const page = useLoad(
    (signal) => api.get<{ nodes: NodeSummary[] }>(request.path, request.query, { signal }),
    [api, key],
  );
  const users = useLoad((signal) => api.get<{ users: User[] }>('/users/', undefined, { signal }), [api]);
  const userNames = useMemo(
    () => new Map(users.state === 'ok' ? users.data.data.users.map((u) => [u.id, userName(u)] as const) : []),
    [users],
  );
  const types = useLoad(
    (signal) => api.get<TypeCount>('/nodes/full_types_count/', undefined, { signal }),
    [api],
  );
  const go = (next: Partial<ListState>) => navigate(href('/nodes', listStateParams({ ...state, ...next })));

  return (
    <>
      <h1>Nodes</h1>
      <Filters
        state={state}
        users={users.state === 'ok' ? users.data.data.users : []}
        types={types.state === 'ok' ? typeOptions(types.data.data) : []}
        onApply={go}
      />
      {state.label !== undefined && MAYBE_CHEMISTRY.test(state.label.trim()) && (
        <Lazy load={loadChemistry} props={{ text: state.label }} what="the structures" />
      )}
      <Await loaded={page} what="this page of nodes">
        {(answer) => (
          <>
            <p class="muted" data-figure="list-total">
              {formatCount(answer.totalCount ?? answer.data.nodes.length)} nodes
            </p>
            {answer.data.nodes.length === 0 ? (
              <p>No node matches these filters.</p>
            ) : (
              <NodeTable
                nodes={answer.data.nodes}
                caption="Nodes"
                sort={state.sort}
                onSort={(sort) => go({ sort, page: 1 })}
                userNames={userNames}
              />
            )}
            <div class="list-foot">
              <Pager
                page={state.page}
                perpage={state.perpage}
                total={answer.totalCount}
                onPage={(p) => go({ page: p })}
              />
              <label>
                Rows per page{' '}
                <select
                  value={String(state.perpage)}
                  onChange={(e) =>
                    go({ perpage: Number((e.currentTarget as HTMLSelectElement).value), page: 1 })
                  }
                >
                  {PAGE_SIZES.map((n) => (
                    <option key={n} value={String(n)}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          </>
        )}
      </Await>
    </>
  );
}

/** The filters as a form: applied together (page 1 again); the type comes from the home page's tree. */
function Filters({
  state,
  users,
  types,
  onApply,
}: {
  state: ListState;
  users: User[];
  types: ReturnType<typeof typeOptions>;
  onApply(s: Partial<ListState>): void;
}) {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => {
      const v = String(form.get(name) ?? '').trim();
      return v === '' ? undefined : v;
    };
    const user = text('user');
    onApply({
      page: 1,
      label: text('label'),
      uuid: text('uuid')?.toLowerCase(),
      from: text('from'),
      to: text('to'),
      user: user === undefined ? undefined : Number(user),
      type: text('type'),
    });
  };
  // The key makes the form show the URL's values again after navigating (back, a link).
  return (
    <form class="filters" onSubmit={submit} key={JSON.stringify(state)} aria-label="Filters">
      <label>
        Label contains <input name="label" type="search" value={state.label ?? ''} />
      </label>
      <label>
        UUID starts with <input name="uuid" type="search" value={state.uuid ?? ''} size={10} />
      </label>
      <label>
        Created (UTC) from <input name="from" type="date" value={state.from ?? ''} />
      </label>
      <label>
        to <input name="to" type="date" value={state.to ?? ''} />
      </label>
      <label>
        User{' '}
        <select name="user" value={state.user === undefined ? '' : String(state.user)}>
          <option value="">anyone</option>
          {users.map((u) => (
            <option key={u.id} value={String(u.id)}>
              {userName(u)}
            </option>
          ))}
          {state.user !== undefined && !users.some((u) => u.id === state.user) && (
            <option value={String(state.user)}>user {state.user}</option>
          )}
        </select>
      </label>
      <label>
        Type{' '}
        <select name="type" value={state.type ?? ''}>
          <option value="">any</option>
          {types.map((t) => (
            <option key={t.full_type + t.label} value={t.full_type}>
              {'\u00a0\u00a0'.repeat(t.depth)}
              {t.label}
              {t.counter === undefined ? '' : ` (${formatCount(t.counter)})`}
            </option>
          ))}
          {state.type !== undefined && !types.some((t) => t.full_type === state.type) && (
            <option value={state.type}>{state.type}</option>
          )}
        </select>
      </label>
      <button type="submit">Apply</button>
      <button
        type="button"
        onClick={() =>
          onApply({
            page: 1,
            label: undefined,
            uuid: undefined,
            from: undefined,
            to: undefined,
            user: undefined,
            type: undefined,
          })
        }
      >
        Clear
      </button>
    </form>
  );
}
