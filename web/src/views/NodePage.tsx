/** A node's page: what it is, its type's own view, its contents, links, graph, files and downloads. */
import { useMemo } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { isNotFound, useLoad } from '../hooks.js';
import { NotFound } from './NotFound.js';
import { kindName, typeName, userName } from '../format.js';
import type { Computer, NodeSummary, User } from '../types.js';
import { provenanceGraph, typeView } from '../by-type/index.js';
import { Await } from '../components/Await.js';
import { CopyButton } from '../components/CopyButton.js';
import { DateTime } from '../components/DateTime.js';
import { FileBrowser, repoFiles } from '../components/FileBrowser.js';
import { JsonTree } from '../components/JsonTree.js';
import { Lazy } from '../components/Lazy.js';
import { Link } from '../components/Link.js';
import { Section } from '../components/Section.js';
import { ExportDownload } from '../components/ExportDownload.js';
import { Boundary } from '../components/Boundary.js';
import { OptimadeEntry } from '../components/OptimadeEntry.js';
import { optimadeBase, servesOptimade } from '../optimade-base.js';
import { Comments, Derived, Downloads, NodeContents } from './NodeParts.js';
import { LinkTable } from './NodeLinks.js';
import { ProcessFacts } from './ProcessFacts.js';

export function NodePage({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const node = useLoad(
    async (signal) => {
      // `/nodes/<pk>` names a node by its pk (AiiDA's `load_node(3806)`); a pk no node has may still be the start
      // of a UUID, so that is asked next.
      if (/^\d+$/.test(uuid)) {
        const byPk = await api.get<{ nodes: NodeSummary[] }>('/nodes/', `id=${uuid}`, { signal });
        const found = byPk.data.nodes[0];
        if (found !== undefined) return found;
      }
      const answer = await api.get<{ nodes: NodeSummary[] }>(
        `/nodes/${encodeURIComponent(uuid)}/`,
        undefined,
        {
          signal,
        },
      );
      const found = answer.data.nodes[0];
      if (found === undefined) throw new Error(`The API answered no node for ${uuid}.`);
      return found;
    },
    [api, uuid],
  );
  if (node.state === 'error' && isNotFound(node.error))
    return (
      <NotFound>
        No node with the {/^\d+$/.test(uuid) ? 'pk or UUID' : 'UUID'} <code>{uuid}</code> is in this data.
      </NotFound>
    );
  return (
    <Await loaded={node} what={`node ${uuid}`}>
      {(found) => <NodeDetails node={found} />}
    </Await>
  );
}

/** Description and computer are not among the node endpoints' columns: the querybuilder has them. */
interface NodeMore {
  description: string;
  dbcomputer_id: number | null;
}

function NodeDetails({ node }: { node: NodeSummary }) {
  const { api, navigate, href, root } = useExplorer();
  const more = useLoad(
    async (signal) => {
      const answer = await api.query<{ n?: NodeMore[] }>(
        {
          path: [{ entity_type: 'node.Node.', orm_base: 'node', tag: 'n' }],
          filters: { n: { uuid: { '==': node.uuid } } },
          project: { n: ['description', 'dbcomputer_id'] },
          limit: 1,
        },
        { signal },
      );
      return answer.data.n?.[0];
    },
    [api, node.uuid],
  );
  const user = useLoad(
    (signal) =>
      api.get<{ users: User[] }>('/users/', `id=${node.user_id}`, { signal }).then((a) => a.data.users[0]),
    [api, node.user_id],
  );
  const computerId = more.state === 'ok' ? more.data?.dbcomputer_id : undefined;
  const full: NodeSummary = useMemo(
    () =>
      more.state === 'ok' && more.data
        ? { ...node, description: more.data.description, dbcomputer_id: more.data.dbcomputer_id }
        : { ...node, description: node.description ?? '', dbcomputer_id: node.dbcomputer_id ?? null },
    [node, more],
  );
  const view = typeView(full);
  const files = useMemo(() => repoFiles(api, node.uuid), [api, node.uuid]);

  // A "N more" of the graph opens the paged list of those links: here, or on the neighbour's page.
  const onMore = (uuid: string, direction: 'incoming' | 'outgoing') => {
    if (uuid === node.uuid) window.location.hash = direction;
    else navigate(`${href(`/nodes/${uuid}`)}#${direction}`);
  };

  return (
    <article class="node">
      <div
        class={`node-top${view ? '' : ' no-view'}${node.node_type.startsWith('process.') ? ' node-process' : ''}`}
      >
        <div class="node-summary">
          <p class="kicker">
            {typeName(node.node_type)}
            {node.process_type ? ` · ${kindName(node)}` : ''}
          </p>
          <h1>{node.label === '' ? <em>(no label)</em> : node.label}</h1>
          {more.state === 'ok' && more.data?.description ? (
            <p class="description">{more.data.description}</p>
          ) : null}
          <dl class="props">
            {node.node_type.startsWith('process.') && <ProcessFacts uuid={node.uuid} />}
            <dt>UUID</dt>
            <dd>
              <code data-field="uuid">{node.uuid}</code> <CopyButton value={node.uuid} label="Copy UUID" />
            </dd>
            <dt>pk</dt>
            <dd data-field="pk">{node.id}</dd>
            <dt>Type</dt>
            <dd>
              <code>{node.node_type}</code>
            </dd>
            {node.process_type ? (
              <>
                <dt>Process type</dt>
                <dd>
                  <code>{node.process_type}</code>
                </dd>
              </>
            ) : null}
            {/^data\.core\.(structure|cif)\./.test(node.node_type) && servesOptimade(api) ? (
              <OptimadeEntry
                href={`${optimadeBase(api, root)}/structures/${node.uuid}`}
                known={node.node_type.startsWith('data.core.structure.')}
              />
            ) : null}
            <dt>Created</dt>
            <dd>
              <DateTime value={node.ctime} />
            </dd>
            <dt>Modified</dt>
            <dd>
              <DateTime value={node.mtime} />
            </dd>
            <dt>User</dt>
            <dd>
              <Link path="/nodes" params={{ user: node.user_id }}>
                {user.state === 'ok' && user.data ? userName(user.data) : `user ${node.user_id}`}
              </Link>
            </dd>
            <dt>Computer</dt>
            <dd>
              {more.state === 'error' ? (
                <span class="muted">unknown (the querybuilder answered: {more.error.message})</span>
              ) : computerId === undefined ? (
                more.state === 'loading' ? (
                  '…'
                ) : (
                  '—'
                )
              ) : computerId === null ? (
                '—'
              ) : (
                <ComputerName id={computerId} />
              )}
            </dd>
          </dl>
          <ExportDownload nodes={[node.uuid]} />
        </div>
        <section class="node-graph" id="graph" aria-labelledby="graph-title">
          <h2 id="graph-title">Provenance</h2>
          <Boundary what="the provenance graph">
            <Lazy
              load={provenanceGraph}
              props={{
                node: full,
                api,
                onOpen: (uuid: string) => navigate(href(`/nodes/${uuid}`)),
                onMore,
              }}
              what="the provenance graph"
            />
          </Boundary>
        </section>
        {view && (
          <section class="node-view" id="view" aria-labelledby="view-title">
            <h2 id="view-title" class="visually-hidden">
              {typeName(node.node_type)}
            </h2>
            <Boundary what="the view of this type">
              <Lazy load={view} props={{ node: full, api }} what="the view of this type" />
            </Boundary>
          </section>
        )}
      </div>

      <Section title="Attributes" id="attributes" collapsed>
        <NodeContents uuid={node.uuid} part="attributes" />
      </Section>
      <Section title="Extras" id="extras" collapsed>
        <NodeContents uuid={node.uuid} part="extras" />
      </Section>
      <Section title="Derived properties" id="derived" collapsed>
        <Derived uuid={node.uuid} />
      </Section>
      <Section title="Comments" id="comments" collapsed>
        <Comments uuid={node.uuid} />
      </Section>
      <Section title="Incoming links" id="incoming" collapsed>
        <LinkTable uuid={node.uuid} direction="incoming" />
      </Section>
      <Section title="Outgoing links" id="outgoing" collapsed>
        <LinkTable uuid={node.uuid} direction="outgoing" />
      </Section>
      <Section title="Files" id="files" collapsed>
        <FileBrowser source={files} title="Repository files" urlKey="file" hash="files" />
      </Section>
      <Section title="Download" id="download" collapsed>
        <Downloads node={node} />
      </Section>
      <Section title="As the API answers it" id="raw" collapsed>
        <JsonTree value={node} open />
      </Section>
    </article>
  );
}

function ComputerName({ id }: { id: number }) {
  const { api } = useExplorer();
  const computer = useLoad(
    (signal) =>
      api
        .get<{ computers: Computer[] }>('/computers/', `id=${id}`, { signal })
        .then((a) => a.data.computers[0]),
    [api, id],
  );
  if (computer.state !== 'ok' || computer.data === undefined) return <span>computer {id}</span>;
  return <Link path={`/computers/${computer.data.uuid}`}>{computer.data.label}</Link>;
}
