/**
 * A process's state, its exit code and message side by side, and the code it ran on which computer: the first
 * lines of a process's summary, so that they are on the first screen of a phone, above the graph.
 */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { processStatus } from '../by-type/logic/process.js';
import { codeOfProcess } from '../process-code.js';
import { Link } from '../components/Link.js';

export function ProcessFacts({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const status = useLoad(
    async (signal) =>
      processStatus(
        (
          await api.get<{ attributes: Record<string, unknown> }>(
            `/nodes/${uuid}/contents/attributes/`,
            'attributes_filter=process_state,exit_status,exit_message',
            { signal },
          )
        ).data.attributes,
      ),
    [api, uuid],
  );
  const code = useLoad((signal) => codeOfProcess(api, uuid, signal), [api, uuid]);
  return (
    <>
      <dt>State</dt>
      <dd data-field="state">
        {status.state === 'ok' ? (
          <>
            <span class={`state-badge tone-${status.data.tone}`} data-testid="summary-state">
              {status.data.state}
            </span>
            {status.data.exitStatus !== undefined && (
              <span class={`tone-${status.data.tone}`} data-testid="summary-exit">
                {' '}
                exit code {status.data.exitStatus}
                {/* The message on a line of its own: a long code (ERROR_..._NOT_REACHED) then fits whole. */}
                {status.data.exitMessage ? (
                  <span style={{ display: 'block' }} data-field="exit-message">
                    {status.data.exitMessage}
                  </span>
                ) : (
                  ''
                )}
              </span>
            )}
          </>
        ) : status.state === 'loading' ? (
          '…'
        ) : (
          <span class="muted">unknown ({status.error.message})</span>
        )}
      </dd>
      {code.state === 'ok' && code.data !== undefined && (
        <>
          <dt>Code</dt>
          <dd data-field="code">
            <Link path={`/nodes/${code.data.code.uuid}`}>
              {code.data.code.label || `code ${code.data.code.id}`}
            </Link>
            {code.data.computer && (
              <>
                {' on '}
                <Link path={`/computers/${code.data.computer.uuid}`}>{code.data.computer.label}</Link>
              </>
            )}
          </dd>
        </>
      )}
    </>
  );
}
