/** A computer's settings (the ones a code or remote folder runs with): host, scheduler, transport, metadata. */
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { Link } from '../../components/Link.js';
import { useLoad } from '../../hooks.js';
import type { Computer } from '../../types.js';
import { Section } from './common.js';

/** The computer of a node by its pk; nothing when the node has none (a portable code, a remote-less code). */
export function NodeComputer({ api, computerId }: { api: Api; computerId: unknown }) {
  if (typeof computerId !== 'number') return null;
  return <ComputerById api={api} id={computerId} />;
}

function ComputerById({ api, id }: { api: Api; id: number }) {
  const loaded = useLoad(
    async (signal) => {
      const answer = await api.get<{ computers: Computer[] }>('/computers/', `id=${id}`, { signal });
      const computer = answer.data.computers[0];
      if (!computer) throw new Error(`computer ${id} is not in the data`);
      return computer;
    },
    [api, id],
  );
  return (
    <Section title="Computer" id="bt-computer">
      <Await loaded={loaded} what="the computer">
        {(computer) => <ComputerSettings computer={computer} />}
      </Await>
    </Section>
  );
}

export function ComputerSettings({ computer }: { computer: Computer }) {
  const metadata = computer.metadata ?? {};
  return (
    <dl class="bt-facts" data-testid="computer">
      <dt>Label</dt>
      <dd>
        <Link path={`/computers/${computer.uuid}`}>{computer.label}</Link>
      </dd>
      <dt>Hostname</dt>
      <dd>{computer.hostname}</dd>
      {computer.description && (
        <>
          <dt>Description</dt>
          <dd>{computer.description}</dd>
        </>
      )}
      <dt>Scheduler</dt>
      <dd>{computer.scheduler_type}</dd>
      <dt>Transport</dt>
      <dd>{computer.transport_type}</dd>
      {Object.entries(metadata).map(([k, v]) => (
        <Setting key={k} name={k} value={v} />
      ))}
    </dl>
  );
}

/** One setting: text with newlines (scripts) as a block, lists joined, the rest as JSON. */
export function Setting({ name, value }: { name: string; value: unknown }) {
  const label = name.replace(/_/g, ' ');
  let shown;
  if (typeof value === 'string') {
    shown =
      value === '' ? (
        <span class="bt-muted">(empty)</span>
      ) : value.includes('\n') ? (
        <pre class="bt-pre" tabIndex={0}>
          {value}
        </pre>
      ) : (
        <code>{value}</code>
      );
  } else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    shown = <code>{value.join(' ')}</code>;
  } else {
    shown = <code>{value === null || value === undefined ? '—' : JSON.stringify(value)}</code>;
  }
  return (
    <>
      <dt>{label}</dt>
      <dd>{shown}</dd>
    </>
  );
}
