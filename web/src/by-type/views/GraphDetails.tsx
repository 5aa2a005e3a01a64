/**
 * Beside the provenance graph: the summary of the node picked in it (what it is, its label and pk, when it was
 * made) with the view of its type (a structure's 3D view and formula, a dictionary's values, a process's state),
 * without leaving the page; and the trail of nodes visited, each a link to its page.
 */
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { Boundary } from '../../components/Boundary.js';
import { DateTime } from '../../components/DateTime.js';
import { Lazy } from '../../components/Lazy.js';
import { Link } from '../../components/Link.js';
import { kindName, typeName } from '../../format.js';
import { useLoad } from '../../hooks.js';
import type { NodeSummary } from '../../types.js';
import { typeView } from '../index.js';
import { parseTrail, type TrailItem } from '../logic/graph-state.js';

interface DetailsProps {
  uuid: string;
  api: Api;
  /** Whether its neighbours are drawn already. */
  expanded: boolean;
  /** Whether it is in the picture (a selection from an address may name a node not drawn). */
  drawn: boolean;
  onExpand(): void;
  onClose(): void;
}

export function GraphDetails({ uuid, api, expanded, drawn, onExpand, onClose }: DetailsProps) {
  const node = useLoad(
    async (signal) => {
      const answer = await api.get<{ nodes: NodeSummary[] }>(`/nodes/${uuid}/`, undefined, { signal });
      const found = answer.data.nodes[0];
      if (found === undefined) throw new Error(`The API answered no node for ${uuid}.`);
      return { ...found, description: found.description ?? '', dbcomputer_id: found.dbcomputer_id ?? null };
    },
    [api, uuid],
  );
  return (
    <Await loaded={node} what="the node's details">
      {(n) => {
        const view = typeView(n);
        return (
          <div data-testid="graph-details" data-uuid={n.uuid}>
            <p class="bt-muted pg-kicker">
              {typeName(n.node_type)}
              {n.process_type ? ` · ${kindName(n)}` : ''}
            </p>
            <h3 class="pg-title">{n.label === '' ? <em>(no label)</em> : n.label}</h3>
            <dl class="pg-props">
              <dt>pk</dt>
              <dd data-field="pk">{n.id}</dd>
              <dt>UUID</dt>
              <dd>
                <code>{n.uuid.slice(0, 8)}…</code>
              </dd>
              <dt>Created</dt>
              <dd>
                <DateTime value={n.ctime} />
              </dd>
            </dl>
            <p class="pg-actions">
              <Link path={`/nodes/${n.uuid}`} class="bt-button">
                Open
              </Link>
              {drawn && !expanded && (
                <button type="button" class="bt-button" onClick={onExpand}>
                  Expand
                </button>
              )}
              <button type="button" class="bt-button" onClick={onClose}>
                Close
              </button>
            </p>
            {view && (
              <Boundary what="the view of this type">
                <Lazy load={view} props={{ node: n, api }} what="the view of this type" />
              </Boundary>
            )}
          </div>
        );
      }}
    </Await>
  );
}

export function Trail({ items }: { items: TrailItem[] }) {
  if (items.length === 0) return null;
  return (
    <nav class="pg-trail" aria-label="Visited in the graph" data-testid="graph-trail">
      <span class="bt-muted">Visited:</span>
      <ol>
        {items.map((t) => (
          <li key={t.uuid}>
            <Link path={`/nodes/${t.uuid}`}>{t.caption}</Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}

const trailKey = (base: string) => `quarry:graph-trail:${base}`;

/** The trail of this tab for this API (a tab may visit several sources). */
export function storedTrail(base: string): TrailItem[] {
  try {
    return parseTrail(window.sessionStorage.getItem(trailKey(base)));
  } catch {
    return [];
  }
}

export function storeTrail(base: string, trail: TrailItem[]): void {
  try {
    window.sessionStorage.setItem(trailKey(base), JSON.stringify(trail));
  } catch {
    // Storage full or refused: the trail lives as long as the page.
  }
}
