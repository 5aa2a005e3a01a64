/**
 * The whole call tree of a workflow: the processes it called, each workflow among them unfolding into its own
 * called processes when asked (fetched then), states in colour, a page of 50 at a time so that a workflow with
 * thousands of children stays quick.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { Link } from '../../components/Link.js';
import { useLoad } from '../../hooks.js';
import type { LinkedNode } from '../../types.js';
import { quotedParam } from '../logic/files.js';
import { processStatus } from '../logic/process.js';
import { Section } from './common.js';

const PER_PAGE = 50;
const STATUS_ATTRIBUTES = 'process_label,process_state,exit_status,exit_message';

export function CallTree({ api, uuid }: { api: Api; uuid: string }) {
  return (
    <Section title="Called processes" id="bt-outgoing-calls">
      <Calls api={api} uuid={uuid} depth={0} />
    </Section>
  );
}

function Calls({ api, uuid, depth }: { api: Api; uuid: string; depth: number }) {
  const [pages, setPages] = useState(1);
  return (
    <ul class="bt-calls" data-testid={depth === 0 ? 'call-tree' : undefined}>
      {Array.from({ length: pages }, (_, i) => (
        <CallPage
          key={i}
          api={api}
          uuid={uuid}
          page={i + 1}
          depth={depth}
          onMore={() => setPages(pages + 1)}
          last={i + 1 === pages}
        />
      ))}
    </ul>
  );
}

function CallPage(props: {
  api: Api;
  uuid: string;
  page: number;
  depth: number;
  last: boolean;
  onMore(): void;
}) {
  const { api, uuid, page, depth, last, onMore } = props;
  const loaded = useLoad(
    async (signal) => {
      const answer = await api.get<{ outgoing: LinkedNode[] }>(
        `/nodes/${uuid}/links/outgoing/page/${page}/`,
        `perpage=${PER_PAGE}&${quotedParam('full_type', 'process.%|%')}&attributes=true&attributes_filter=${STATUS_ATTRIBUTES}`,
        { signal },
      );
      return { nodes: answer.data.outgoing ?? [], total: answer.totalCount ?? 0 };
    },
    [api, uuid, page],
  );
  return (
    <Await loaded={loaded} what="the called processes">
      {({ nodes, total }) => (
        <>
          {page === 1 && nodes.length === 0 && <li class="bt-muted">This process called none.</li>}
          {nodes.map((n) => (
            <Call key={`${n.uuid}${n.link_label}`} api={api} node={n} depth={depth} />
          ))}
          {last && total > page * PER_PAGE && (
            <li>
              <button type="button" class="bt-button" onClick={onMore}>
                Show {Math.min(PER_PAGE, total - page * PER_PAGE)} more of {total}
              </button>
            </li>
          )}
        </>
      )}
    </Await>
  );
}

function Call({ api, node, depth }: { api: Api; node: LinkedNode; depth: number }) {
  const [open, setOpen] = useState(false);
  const attrs = (node.attributes ?? {}) as Record<string, unknown>;
  const s = processStatus(attrs);
  const workflow = node.node_type.startsWith('process.workflow.');
  const name = `${String(attrs.process_label ?? node.node_type)} ${node.id}`;
  return (
    <li data-uuid={node.uuid}>
      {workflow ? (
        <button
          type="button"
          class="bt-toggle"
          aria-expanded={open}
          aria-label={`${open ? 'Fold' : 'Unfold'} the processes ${name} called`}
          onClick={() => setOpen(!open)}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        </button>
      ) : (
        <span class="bt-toggle" aria-hidden="true" />
      )}
      <span class={`bt-state bt-tone-${s.tone}`}>
        {s.state}
        {s.exitStatus !== undefined ? ` [${s.exitStatus}]` : ''}
      </span>{' '}
      <Link path={`/nodes/${node.uuid}`}>
        {name}
        {node.label ? ` ${node.label}` : ''}
      </Link>{' '}
      <span class="bt-muted">{node.link_label}</span>
      {open && <Calls api={api} uuid={node.uuid} depth={depth + 1} />}
    </li>
  );
}
