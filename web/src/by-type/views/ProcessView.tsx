/**
 * Processes (calcfunctions, calcjobs, workchains, workfunctions): their inputs first, then state and exit status
 * in colour, the results, the report, the callers and the called, and a calcjob's input and output files.
 */
import { useMemo } from 'preact/hooks';
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { DateTime } from '../../components/DateTime.js';
import { Link } from '../../components/Link.js';
import { useLoad } from '../../hooks.js';
import type { LinkedNode } from '../../types.js';
import type { TypeViewProps } from '../index.js';
import { isCalcJob } from '../logic/choose.js';
import { filenameQuery, quotedParam, type Entry } from '../logic/files.js';
import { logTone, processStatus } from '../logic/process.js';
import { Section, Table, useShown } from './common.js';
import { useAttributes } from './contents.js';
import { KeyOutputs } from './KeyOutputs.js';
import { CallTree } from './CallTree.js';
import { ProcessInputs } from './ProcessInputs.js';
import { FileBrowser, type FileSource } from '../../components/FileBrowser.js';
import { useExplorer } from '../../context.js';
import { parseRoute } from '../../url.js';

const STATUS_ATTRIBUTES = 'process_label,process_state,exit_status,exit_message';

/**
 * Is this the page of `node` itself? Its summary says the state and exit code and message already (ProcessFacts);
 * the view says them again only elsewhere (in the provenance graph's details of another node).
 */
function onOwnPage(node: { uuid: string; id: number }, root: string): boolean {
  const route = parseRoute(window.location.pathname, root);
  return route.name === 'node' && (route.uuid === node.uuid || route.uuid === String(node.id));
}

export default function ProcessView({ node, api }: TypeViewProps) {
  const attributes = useAttributes({ node, api });
  const { root } = useExplorer();
  const summarised = onOwnPage(node, root);
  return (
    <div class="bt-view" data-view="process">
      <ProcessInputs api={api} uuid={node.uuid} />
      <Section title="Process" id="bt-process">
        <Await loaded={attributes} what="the process state">
          {(attrs) => <Status attributes={attrs} summarised={summarised} />}
        </Await>
      </Section>
      <KeyOutputs api={api} uuid={node.uuid} />
      <Report api={api} uuid={node.uuid} />
      <Relatives api={api} uuid={node.uuid} direction="incoming" title="Called by" />
      <CallTree api={api} uuid={node.uuid} />
      {isCalcJob(node.node_type) && <CalcJobFiles api={api} uuid={node.uuid} />}
    </div>
  );
}

function Status({ attributes, summarised }: { attributes: Record<string, unknown>; summarised: boolean }) {
  const status = processStatus(attributes);
  return (
    <dl class="bt-facts">
      {!summarised && <StateLine status={status} />}
      {typeof attributes.process_label === 'string' && (
        <>
          <dt>Process</dt>
          <dd>{attributes.process_label}</dd>
        </>
      )}
      {typeof attributes.process_status === 'string' && (
        <>
          <dt>Status</dt>
          <dd>{attributes.process_status}</dd>
        </>
      )}
      {typeof attributes.exception === 'string' && (
        <>
          <dt>Exception</dt>
          <dd>
            <pre class="bt-pre bt-tone-failed" tabIndex={0}>
              {attributes.exception}
            </pre>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The state, exit code and message, in colour. */
function StateLine({ status }: { status: ReturnType<typeof processStatus> }) {
  return (
    <>
      <dt>State</dt>
      <dd>
        <span class={`bt-state bt-tone-${status.tone}`} data-testid="process-state">
          {status.state}
        </span>{' '}
        exit code{' '}
        <span
          data-testid="exit-status"
          class={status.exitStatus === undefined ? '' : `bt-tone-${status.tone}`}
        >
          {status.exitStatus === undefined ? '—' : status.exitStatus}
        </span>
        {status.exitMessage && (
          <>
            {': '}
            <span class={`bt-tone-${status.tone}`} data-testid="exit-message">
              {status.exitMessage}
            </span>
          </>
        )}
      </dd>
    </>
  );
}

interface Log {
  time: string;
  levelname: string;
  loggername: string;
  message: string;
}

function Report({ api, uuid }: { api: Api; uuid: string }) {
  const logs = useLoad(
    async (signal) =>
      (await api.get<{ logs: Log[] }>(`/processes/${uuid}/report/`, undefined, { signal })).data.logs,
    [api, uuid],
  );
  return (
    <Section title="Report" id="bt-report">
      <Await loaded={logs} what="the report">
        {(list) => <Logs logs={list} />}
      </Await>
    </Section>
  );
}

function Logs({ logs }: { logs: Log[] }) {
  const { shown, more } = useShown(logs);
  if (logs.length === 0) return <p data-testid="report">This process logged nothing.</p>;
  return (
    <>
      <div class="bt-scroll" tabIndex={0}>
        <table class="bt-table" data-testid="report">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Level</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((l, i) => (
              <tr key={i}>
                <td class="bt-nowrap">
                  <DateTime value={l.time} />
                </td>
                <td>
                  <span class={`bt-log-level bt-state bt-tone-${logTone(l.levelname)}`}>{l.levelname}</span>
                </td>
                <td style={{ whiteSpace: 'pre-wrap' }}>{l.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more}
    </>
  );
}

const PER_PAGE = 50;

/** The processes linked by call links: the caller (incoming) or the called ones (outgoing), a page at a time. */
function Relatives({
  api,
  uuid,
  direction,
  title,
}: {
  api: Api;
  uuid: string;
  direction: 'incoming' | 'outgoing';
  title: string;
}) {
  const links = useLoad(
    async (signal) => {
      const answer = await api.get<Record<string, LinkedNode[]>>(
        `/nodes/${uuid}/links/${direction}/page/1/`,
        `perpage=${PER_PAGE}&${quotedParam('full_type', 'process.%|%')}&attributes=true&attributes_filter=${STATUS_ATTRIBUTES}`,
        { signal },
      );
      return { nodes: answer.data[direction] ?? [], total: answer.totalCount };
    },
    [api, uuid, direction],
  );
  return (
    <Section title={title} id={`bt-${direction}-calls`}>
      <Await loaded={links} what={title.toLowerCase()}>
        {({ nodes, total }) =>
          nodes.length === 0 ? (
            <p class="bt-muted">
              {direction === 'incoming' ? 'No process called this one.' : 'This process called none.'}
            </p>
          ) : (
            <>
              <Table testid={`${direction}-calls`} columns={['Link', 'Process', 'State', 'Created']}>
                {nodes.map((n) => {
                  const attrs = (n.attributes ?? {}) as Record<string, unknown>;
                  const s = processStatus(attrs);
                  return (
                    <tr key={`${n.uuid}${n.link_label}`}>
                      <td>
                        {n.link_label} <span class="bt-muted">({n.link_type})</span>
                      </td>
                      <td>
                        <Link path={`/nodes/${n.uuid}`}>
                          {String(attrs.process_label ?? n.node_type)} {n.id}
                          {n.label ? ` ${n.label}` : ''}
                        </Link>
                      </td>
                      <td>
                        <span class={`bt-state bt-tone-${s.tone}`}>
                          {s.state}
                          {s.exitStatus !== undefined ? ` [${s.exitStatus}]` : ''}
                        </span>
                      </td>
                      <td>
                        <DateTime value={n.ctime} />
                      </td>
                    </tr>
                  );
                })}
              </Table>
              {total !== undefined && total > nodes.length && (
                <p class="bt-muted">
                  The first {nodes.length} of {total}; the node's links list has them all.
                </p>
              )}
            </>
          )
        }
      </Await>
    </Section>
  );
}

/** The calcjob's input files (its own repository) and output files (those of its `retrieved` folder). */
function CalcJobFiles({ api, uuid }: { api: Api; uuid: string }) {
  const input = useMemo<FileSource>(
    () => ({
      list: async (path, signal) =>
        (
          await api.get<Entry[]>(`/calcjobs/${uuid}/input_files/`, path ? filenameQuery(path) : undefined, {
            signal,
          })
        ).data,
      fileUrl: (path) => api.url(`/nodes/${uuid}/repo/contents/`, filenameQuery(path)),
    }),
    [api, uuid],
  );
  const retrieved = useLoad(
    async (signal) => {
      const answer = await api.get<{ outgoing: LinkedNode[] }>(
        `/nodes/${uuid}/links/outgoing/`,
        quotedParam('full_type', 'data.core.folder.FolderData.|'),
        { signal },
      );
      return answer.data.outgoing.find((n) => n.link_label === 'retrieved')?.uuid;
    },
    [api, uuid],
  );
  const folder = retrieved.state === 'ok' ? retrieved.data : undefined;
  const output = useMemo<FileSource | undefined>(
    () =>
      folder === undefined
        ? undefined
        : {
            list: async (path, signal) => {
              const answer = await api.get<Entry[] | string>(
                `/calcjobs/${uuid}/output_files/`,
                path ? filenameQuery(path) : undefined,
                { signal },
              );
              // Without a retrieved folder the API answers a sentence instead of a list.
              if (!Array.isArray(answer.data)) throw new Error(String(answer.data));
              return answer.data;
            },
            fileUrl: (path) => api.url(`/nodes/${folder}/repo/contents/`, filenameQuery(path)),
          },
    [api, uuid, folder],
  );
  return (
    <>
      <Section title="Input files" id="bt-input-files">
        <div data-testid="input-files">
          <FileBrowser source={input} title="Input files" urlKey="input" />
        </div>
      </Section>
      <Section title="Output files" id="bt-output-files">
        <Await loaded={retrieved} what="the retrieved folder">
          {() =>
            output === undefined ? (
              <p class="bt-muted" data-testid="output-files">
                This calculation has no retrieved folder (yet), so no output files.
              </p>
            ) : (
              <div data-testid="output-files">
                <FileBrowser source={output} title="Output files" urlKey="output" />
              </div>
            )
          }
        </Await>
      </Section>
    </>
  );
}
