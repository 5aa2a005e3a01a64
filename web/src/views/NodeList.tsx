/** The node list: one page of nodes at a time, sorted and filtered as the URL says. */
import { useMemo } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, typeFilterName, typeOptions, userName } from '../format.js';
import type { NodeSummary, TypeCount, User } from '../types.js';
import {
  filtersChemistry,
  labelledPartRequest,
  listRequest,
  listStateFrom,
  listStateParams,
  PAGE_SIZES,
  type ListState,
} from '../url.js';
import { chemistryFilter, structurePks } from '../optimade.js';
import { failedPks } from '../failed.js';
import { searchesWords, wordLabelPks } from '../label-words.js';
import { Await } from '../components/Await.js';
import { NodeTable } from '../components/NodeTable.js';
import { Pager } from '../components/Pager.js';
import { Lazy } from '../components/Lazy.js';
import { Link } from '../components/Link.js';

// Looks like a formula (`SiO2`) or element symbols (`Si O`): the chemical search (a chunk of its own) decides.
const MAYBE_CHEMISTRY = /^(([A-Z][a-z]?\d*)+|[A-Z][a-z]?(\s+[A-Z][a-z]?)*)$/;
const loadChemistry = () => import('../components/StructureMatches.js');

/** Structures the chemistry filters take from OPTIMADE at most (the smallest first): one list request's worth. */
const CHEMISTRY_LIMIT = 400;

interface ListPage {
  nodes: NodeSummary[];
  totalCount?: number;
  /** What the chemistry filters found through OPTIMADE, when they are set. */
  chemistry?: { total?: number; taken: number; url: string };
}

/**
 * A page of the list with its labelled nodes first (where no order was asked for: "bands Si2" before twenty
 * unlabelled band structures): the labelled part of the page, the number of unlabelled ones, and the unlabelled
 * rest of the page when the labelled ones end on it.
 */
async function labelledFirst(
  api: ReturnType<typeof useExplorer>['api'],
  state: ListState,
  pks: number[] | undefined,
  signal: AbortSignal,
): Promise<ListPage> {
  type Answer = { nodes: NodeSummary[] };
  const start = (state.page - 1) * state.perpage;
  const part = (labelled: boolean, offset: number, limit: number) => {
    const request = labelledPartRequest(state, labelled, offset, limit, pks);
    return api.get<Answer>(request.path, request.query, { signal });
  };
  const [labelled, unlabelledCount] = await Promise.all([
    part(true, start, state.perpage),
    part(false, 0, 1),
  ]);
  const nodes = [...labelled.data.nodes];
  const before = labelled.totalCount ?? 0;
  if (nodes.length < state.perpage && (unlabelledCount.totalCount ?? 0) > 0) {
    const rest = await part(false, Math.max(0, start - before), state.perpage - nodes.length);
    nodes.push(...rest.data.nodes);
  }
  const total =
    labelled.totalCount === undefined || unlabelledCount.totalCount === undefined
      ? undefined
      : labelled.totalCount + unlabelledCount.totalCount;
  return { nodes, totalCount: total };
}

export function NodeList() {
  const { api, params, href, navigate, root } = useExplorer();
  const state = listStateFrom(params);
  const chemistry = filtersChemistry(state) ? chemistryFilter(state) : undefined;
  const key = `${listRequest(state).query}|${chemistry ?? ''}|${state.failed ?? ''}`;
  const page = useLoad(
    async (signal): Promise<ListPage> => {
      // Elements, their number and a formula are the OPTIMADE endpoint's to answer, failed processes the
      // querybuilder's; the nodes they find then filter the list by pk, so that sorting, paging and the other
      // filters work on them as on any node.
      let pks: number[] | undefined;
      let summary: ListPage['chemistry'];
      if (chemistry !== undefined) {
        const found = await structurePks(api, root, chemistry, CHEMISTRY_LIMIT, signal);
        summary = { total: found.total, taken: found.pks.length, url: found.url };
        pks = found.pks;
      }
      if (state.failed) {
        const failed = await failedPks(api, CHEMISTRY_LIMIT, signal);
        pks = pks === undefined ? failed : pks.filter((pk) => failed.includes(pk));
      }
      // A short text is matched as a word (`Si`, not the `si` of `singlefile`): the nodes it finds replace the
      // list's own substring filter.
      const words = state.label !== undefined && searchesWords(state.label);
      if (words) {
        const found = await wordLabelPks(api, state.label!, CHEMISTRY_LIMIT, signal);
        pks = pks === undefined ? found : pks.filter((pk) => found.includes(pk));
      }
      if (pks !== undefined && pks.length === 0) return { nodes: [], totalCount: 0, chemistry: summary };
      const listed = words ? { ...state, label: undefined } : state;
      if (state.labelledFirst)
        return { ...(await labelledFirst(api, listed, pks, signal)), chemistry: summary };
      const request = listRequest(listed, pks);
      const answer = await api.get<{ nodes: NodeSummary[] }>(request.path, request.query, { signal });
      return { nodes: answer.data.nodes, totalCount: answer.totalCount, chemistry: summary };
    },
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
      <h1>{state.failed ? 'Failed processes' : 'Nodes'}</h1>
      {state.failed && (
        <p class="muted">
          Excepted, killed, or finished with a non-zero exit status; the newest {CHEMISTRY_LIMIT} at most.{' '}
          <Link path="/nodes" params={{ ...listStateParams({ ...state, failed: undefined, page: 1 }) }}>
            All nodes
          </Link>
        </p>
      )}
      <Filters
        state={state}
        users={users.state === 'ok' ? users.data.data.users : []}
        types={types.state === 'ok' ? typeOptions(types.data.data) : []}
        onApply={go}
      />
      {state.label !== undefined && MAYBE_CHEMISTRY.test(state.label.trim()) && (
        <Lazy load={loadChemistry} props={{ text: state.label }} what="the structures" />
      )}
      {filtersChemistry(state) && chemistry === undefined && (
        <p class="muted">“{params.get('formula')}” is not a formula; the list is not filtered by it.</p>
      )}
      <Await loaded={page} what="this page of nodes">
        {(answer) => (
          <>
            <p class="muted" data-figure="list-total">
              {formatCount(answer.totalCount ?? answer.nodes.length)} nodes
              {answer.chemistry && (
                <>
                  {' '}
                  ·{' '}
                  <a href={answer.chemistry.url} rel="nofollow">
                    structures found by OPTIMADE
                  </a>
                  {answer.chemistry.total !== undefined && answer.chemistry.total > answer.chemistry.taken
                    ? `: the ${answer.chemistry.taken} smallest of ${formatCount(answer.chemistry.total)}`
                    : ''}
                </>
              )}
            </p>
            {answer.nodes.length === 0 ? (
              <p>No node matches these filters.</p>
            ) : (
              <NodeTable
                nodes={answer.nodes}
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
      elements: text('elements')
        ?.split(/[\s,]+/)
        .filter((e) => e !== ''),
      nelements: text('nelements') === undefined ? undefined : Number(text('nelements')),
      formula: text('formula'),
    });
  };
  // The key makes the form show the URL's values again after navigating (back, a link). The fields only start
  // from them (defaultValue, option selected): a re-render when the users, the types or the list arrive keeps
  // what the reader typed or chose meanwhile (a value prop put the URL's back, so text typed early was lost).
  return (
    <form class="filters" onSubmit={submit} key={JSON.stringify(state)} aria-label="Filters">
      <label>
        Label contains <input name="label" type="search" defaultValue={state.label ?? ''} />
      </label>
      <label>
        UUID starts with <input name="uuid" type="search" defaultValue={state.uuid ?? ''} size={10} />
      </label>
      <label>
        Created (UTC) from <input name="from" type="date" defaultValue={state.from ?? ''} />
      </label>
      <label>
        to <input name="to" type="date" defaultValue={state.to ?? ''} />
      </label>
      <label>
        User{' '}
        <select name="user">
          <option value="">anyone</option>
          {users.map((u) => (
            <option key={u.id} value={String(u.id)} selected={u.id === state.user}>
              {userName(u)}
            </option>
          ))}
          {state.user !== undefined && !users.some((u) => u.id === state.user) && (
            <option value={String(state.user)} selected>
              user {state.user}
            </option>
          )}
        </select>
      </label>
      <label>
        Type{' '}
        <select name="type">
          <option value="">any</option>
          {types.map((t) => (
            <option key={t.full_type + t.label} value={t.full_type} selected={t.full_type === state.type}>
              {'\u00a0\u00a0'.repeat(t.depth)}
              {t.label}
              {t.counter === undefined ? '' : ` (${formatCount(t.counter)})`}
            </option>
          ))}
          {state.type !== undefined && !types.some((t) => t.full_type === state.type) && (
            <option value={state.type} selected>
              {typeFilterName(state.type, types)}
            </option>
          )}
        </select>
      </label>
      <fieldset class="filters-chemistry">
        <legend>Structures (OPTIMADE)</legend>
        <label>
          Elements{' '}
          <input
            name="elements"
            type="search"
            defaultValue={state.elements?.join(' ') ?? ''}
            size={8}
            placeholder="Si O"
          />
        </label>
        <label>
          Number of elements{' '}
          <input name="nelements" type="number" min={1} max={118} defaultValue={state.nelements ?? ''} />
        </label>
        <label>
          Formula{' '}
          <input
            name="formula"
            type="search"
            defaultValue={state.formula ?? ''}
            size={8}
            placeholder="SiO2"
          />
        </label>
      </fieldset>
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
            elements: undefined,
            nelements: undefined,
            formula: undefined,
          })
        }
      >
        Clear
      </button>
    </form>
  );
}
