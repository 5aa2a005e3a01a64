/** Computers: the list and a computer's page with its settings. */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import type { Computer } from '../types.js';
import { Await } from '../components/Await.js';
import { CopyButton } from '../components/CopyButton.js';
import { JsonTree } from '../components/JsonTree.js';
import { Link } from '../components/Link.js';
import { ListTable } from '../components/ListTable.js';

export function ComputerList() {
  const { api } = useExplorer();
  // Computers are few; one answer holds the API's first 400.
  const loaded = useLoad(
    (signal) => api.get<{ computers: Computer[] }>('/computers/', 'orderby=label', { signal }),
    [api],
  );
  return (
    <>
      <h1>Computers</h1>
      <Await loaded={loaded} what="the computers">
        {(answer) =>
          answer.data.computers.length === 0 ? (
            <p>No computers.</p>
          ) : (
            <>
              <ListTable
                caption="Computers"
                columns={['Label', 'Host name', 'Scheduler', 'Transport', 'Description']}
              >
                {answer.data.computers.map((c) => (
                  <tr key={c.uuid}>
                    <td>
                      <Link path={`/computers/${c.uuid}`}>{c.label}</Link>
                    </td>
                    <td>{c.hostname}</td>
                    <td>{c.scheduler_type}</td>
                    <td>{c.transport_type}</td>
                    <td>{c.description}</td>
                  </tr>
                ))}
              </ListTable>
              {(answer.totalCount ?? 0) > answer.data.computers.length && (
                <p class="muted">
                  The first {answer.data.computers.length} of {answer.totalCount}.
                </p>
              )}
            </>
          )
        }
      </Await>
    </>
  );
}

export function ComputerPage({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const loaded = useLoad(
    async (signal) => {
      const answer = await api.get<{ computers: Computer[] }>(
        `/computers/${encodeURIComponent(uuid)}/`,
        undefined,
        {
          signal,
        },
      );
      const found = answer.data.computers[0];
      if (found === undefined) throw new Error(`The API answered no computer for ${uuid}.`);
      return found;
    },
    [api, uuid],
  );
  return (
    <Await loaded={loaded} what={`computer ${uuid}`}>
      {(c) => (
        <article>
          <p class="kicker">Computer</p>
          <h1>{c.label}</h1>
          {c.description && <p class="description">{c.description}</p>}
          <dl class="props">
            <dt>UUID</dt>
            <dd>
              <code>{c.uuid}</code> <CopyButton value={c.uuid} label="Copy UUID" />
            </dd>
            <dt>pk</dt>
            <dd>{c.id}</dd>
            <dt>Host name</dt>
            <dd>{c.hostname}</dd>
            <dt>Scheduler</dt>
            <dd>{c.scheduler_type}</dd>
            <dt>Transport</dt>
            <dd>{c.transport_type}</dd>
          </dl>
          <h2>Settings</h2>
          {c.metadata && Object.keys(c.metadata).length > 0 ? (
            <JsonTree value={c.metadata} />
          ) : (
            <p class="muted">None.</p>
          )}
        </article>
      )}
    </Await>
  );
}
