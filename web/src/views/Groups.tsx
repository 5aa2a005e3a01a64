/** Groups: the list, and a group's page with its nodes (one page at a time, through the querybuilder). */
import { useMemo } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, userName } from '../format.js';
import type { Group, NodeSummary, User } from '../types.js';
import { memberCount, membersQuery } from '../group-members.js';
import { Await } from '../components/Await.js';
import { CopyButton } from '../components/CopyButton.js';
import { DateTime } from '../components/DateTime.js';
import { JsonTree } from '../components/JsonTree.js';
import { Link } from '../components/Link.js';
import { ListTable } from '../components/ListTable.js';
import { NodeTable } from '../components/NodeTable.js';
import { Pager } from '../components/Pager.js';
import { ExportDownload } from '../components/ExportDownload.js';

const GROUPS_PER_PAGE = 50;
const NODES_PER_PAGE = 20;

function pageParam(params: URLSearchParams): number {
  const n = Number(params.get('page'));
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

export function GroupList() {
  const { api, params, href, navigate } = useExplorer();
  const page = pageParam(params);
  const loaded = useLoad(
    (signal) =>
      api.get<{ groups: Group[] }>(`/groups/page/${page}/`, `perpage=${GROUPS_PER_PAGE}&orderby=label`, {
        signal,
      }),
    [api, page],
  );
  return (
    <>
      <h1>Groups</h1>
      <Await loaded={loaded} what="the groups">
        {(answer) =>
          answer.data.groups.length === 0 ? (
            <p>No groups.</p>
          ) : (
            <>
              <p class="muted" data-figure="groups-total">
                {formatCount(answer.totalCount ?? answer.data.groups.length)} groups
              </p>
              <ListTable caption="Groups" columns={['Label', 'Nodes', 'Description', 'Kind', 'Created']}>
                {answer.data.groups.map((g) => (
                  <tr key={g.uuid}>
                    <td>
                      <Link path={`/groups/${g.uuid}`}>{g.label}</Link>
                    </td>
                    <td class="num" data-members={g.uuid}>
                      <MemberCount group={g} />
                    </td>
                    <td>{g.description}</td>
                    <td>
                      <code>{g.type_string}</code>
                    </td>
                    <td>
                      <DateTime value={g.time} />
                    </td>
                  </tr>
                ))}
              </ListTable>
              <Pager
                page={page}
                perpage={GROUPS_PER_PAGE}
                total={answer.totalCount}
                onPage={(p) => navigate(href('/groups', { page: p === 1 ? undefined : p }))}
              />
            </>
          )
        }
      </Await>
    </>
  );
}

const NODE_COLUMNS = ['id', 'uuid', 'label', 'node_type', 'process_type', 'ctime', 'mtime', 'user_id'];

export function GroupPage({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const group = useLoad(
    async (signal) => {
      const answer = await api.get<{ groups: Group[] }>(`/groups/${encodeURIComponent(uuid)}/`, undefined, {
        signal,
      });
      const found = answer.data.groups[0];
      if (found === undefined) throw new Error(`The API answered no group for ${uuid}.`);
      return found;
    },
    [api, uuid],
  );
  return (
    <Await loaded={group} what={`group ${uuid}`}>
      {(found) => <GroupDetails group={found} />}
    </Await>
  );
}

/** A group's number of nodes, asked for when its row shows; a failure is a question mark with the reason. */
function MemberCount({ group }: { group: Group }) {
  const { api } = useExplorer();
  const count = useLoad((signal) => memberCount(api, group, signal), [api, group.uuid]);
  if (count.state === 'ok') return <>{formatCount(count.data)}</>;
  if (count.state === 'loading') return <span class="muted">…</span>;
  return <span title={count.error.message}>?</span>;
}

function GroupDetails({ group }: { group: Group }) {
  const { api, params, href, navigate } = useExplorer();
  const page = pageParam(params);
  // One row more than a page says whether another page follows while (or if) the count is not known.
  const nodes = useLoad(
    (signal) =>
      api.query<{ n?: NodeSummary[] }>(
        membersQuery(group, NODE_COLUMNS, NODES_PER_PAGE + 1, (page - 1) * NODES_PER_PAGE),
        { signal },
      ),
    [api, group.uuid, page],
  );
  const count = useLoad((signal) => memberCount(api, group, signal), [api, group.uuid]);
  const total = count.state === 'ok' ? count.data : undefined;
  const users = useLoad((signal) => api.get<{ users: User[] }>('/users/', undefined, { signal }), [api]);
  const names = useMemo(
    () => new Map(users.state === 'ok' ? users.data.data.users.map((u) => [u.id, userName(u)] as const) : []),
    [users],
  );
  return (
    <article>
      <p class="kicker">Group · {group.type_string}</p>
      <h1>{group.label}</h1>
      {group.description && <p class="description">{group.description}</p>}
      <dl class="props">
        <dt>UUID</dt>
        <dd>
          <code>{group.uuid}</code> <CopyButton value={group.uuid} label="Copy UUID" />
        </dd>
        <dt>pk</dt>
        <dd>{group.id}</dd>
        <dt>Created</dt>
        <dd>
          <DateTime value={group.time} />
        </dd>
        <dt>User</dt>
        <dd>{names.get(group.user_id) ?? `user ${group.user_id}`}</dd>
        <dt>Nodes</dt>
        <dd data-figure="group-total">
          {count.state === 'ok' ? formatCount(count.data) : count.state === 'loading' ? '…' : '?'}
        </dd>
      </dl>
      <ExportDownload groups={[group.uuid]} />
      {group.extras && Object.keys(group.extras).length > 0 && (
        <>
          <h2>Extras</h2>
          <JsonTree value={group.extras} />
        </>
      )}
      <h2>Nodes</h2>
      <Await loaded={nodes} what="the group's nodes">
        {(answer) => {
          // An empty result has no `n` at all (as the reference answers).
          const found = answer.data.n ?? [];
          const rows = found.slice(0, NODES_PER_PAGE);
          const more = found.length > NODES_PER_PAGE;
          return (
            <>
              {rows.length === 0 ? (
                <p>{page === 1 ? 'This group holds no nodes.' : 'No more nodes.'}</p>
              ) : (
                <>
                  <p class="muted">
                    Nodes {formatCount((page - 1) * NODES_PER_PAGE + 1)}–
                    {formatCount((page - 1) * NODES_PER_PAGE + rows.length)}
                    {total !== undefined ? ` of ${formatCount(total)}` : more ? '' : ' (the last)'}
                  </p>
                  <NodeTable nodes={rows} caption={`Nodes of ${group.label}`} userNames={names} />
                </>
              )}
              <Pager
                page={page}
                perpage={NODES_PER_PAGE}
                total={total}
                hasMore={more}
                onPage={(p) => navigate(href(`/groups/${group.uuid}`, { page: p === 1 ? undefined : p }))}
              />
            </>
          );
        }}
      </Await>
    </article>
  );
}
