/**
 * The provenance graph of a node's neighbourhood (`links/tree`), drawn by cytoscape with a dagre layout. Clicking
 * a neighbour expands it (a bounded number of its neighbours per direction is fetched and added, the rest is one
 * "N more" marker that opens the paged link list); double-clicking, or its "Open" button, opens its page. Captions
 * never shrink below a readable size: the zoom stops there and the picture is moved instead. The same nodes are
 * listed below the picture, for keyboards and screen readers.
 */
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ErrorMessage } from '../../components/Problem.js';
import { Loading } from '../../components/Loading.js';
import type { ProvenanceGraphProps } from '../index.js';
import {
  emptyGraph,
  mergeTree,
  moreMarkers,
  MIN_LABEL_PX,
  NEIGHBOURS_PER_DIRECTION,
  type Graph,
  type TreeAnswer,
} from '../logic/graph.js';
import './by-type.css';

cytoscape.use(dagre);

const LIMIT = NEIGHBOURS_PER_DIRECTION;
/** Captions' size at zoom 1; the zoom never goes below what keeps them at MIN_LABEL_PX on screen. */
const FONT_PX = 12;
const MIN_ZOOM = MIN_LABEL_PX / FONT_PX;

const fetchTree = async (api: Api, uuid: string): Promise<TreeAnswer> =>
  (await api.get<TreeAnswer>(`/nodes/${uuid}/links/tree/`, `in_limit=${LIMIT}&out_limit=${LIMIT}`)).data;

function colours(element: Element) {
  const style = getComputedStyle(element);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--bt-fg', '#1b1f24'),
    muted: v('--bt-muted', '#57606a'),
    bg: v('--bt-bg', '#ffffff'),
    focus: v('--bt-focus', '#0969da'),
    data: v('--bt-data', '#2f6fb0'),
    calculation: v('--bt-calc', '#b35900'),
    workflow: v('--bt-work', '#6f42c1'),
  };
}

export default function ProvenanceGraph({ node, api, onOpen, onMore }: ProvenanceGraphProps) {
  const host = useRef<HTMLDivElement>(null);
  const cy = useRef<cytoscape.Core | undefined>(undefined);
  const graph = useRef<Graph>(emptyGraph());
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<{ loading?: string; error?: Error }>({ loading: node.uuid });
  const [selected, setSelected] = useState<string>(node.uuid);
  const open = useRef(onOpen);
  open.current = onOpen;
  const more = useRef(onMore);
  more.current = onMore;
  const [labelPx, setLabelPx] = useState(FONT_PX);

  const expand = async (uuid: string) => {
    setState({ loading: uuid });
    try {
      const tree = await fetchTree(api, uuid);
      if (!cy.current) return;
      const added = mergeTree(graph.current, tree);
      draw(cy.current, graph.current, added, uuid);
      setState({});
      setVersion((v) => v + 1);
    } catch (error) {
      setState({ error: error as Error });
    }
  };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const c = colours(element);
    graph.current = emptyGraph();
    const core = cytoscape({
      container: element,
      // A lone node or two would otherwise be blown up to fill the frame; below MIN_ZOOM captions are unreadable.
      maxZoom: 2,
      minZoom: MIN_ZOOM,
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'text-wrap': 'wrap',
            'text-max-width': '130px',
            'font-size': FONT_PX,
            color: c.fg,
            'text-valign': 'bottom',
            'text-margin-y': 4,
            // Captions sit over the edges that leave the node: a backdrop keeps them legible.
            'text-background-color': c.bg,
            'text-background-opacity': 0.85,
            'text-background-padding': '2px',
            width: 26,
            height: 26,
            'border-width': 2,
            'border-color': c.bg,
          },
        },
        { selector: 'node[family = "data"]', style: { 'background-color': c.data, shape: 'ellipse' } },
        {
          selector: 'node[family = "calculation"]',
          style: { 'background-color': c.calculation, shape: 'round-rectangle' },
        },
        {
          selector: 'node[family = "workflow"]',
          style: { 'background-color': c.workflow, shape: 'round-diamond' },
        },
        { selector: 'node[family = "other"]', style: { 'background-color': c.muted } },
        { selector: 'node[?expanded]', style: { 'border-color': c.fg } },
        { selector: `node[id = "${node.uuid}"]`, style: { width: 36, height: 36, 'border-width': 4 } },
        { selector: 'node:selected', style: { 'border-color': c.focus, 'border-width': 4 } },
        {
          selector: 'node[?more]',
          style: {
            shape: 'round-rectangle',
            width: 84,
            height: 22,
            'padding-left': '6px',
            'padding-right': '6px',
            'background-color': c.bg,
            'border-color': c.focus,
            'border-width': 1,
            'border-style': 'dashed',
            'text-valign': 'center',
            'text-margin-y': 0,
            color: c.focus,
          },
        },
        { selector: 'edge[?more]', style: { 'line-style': 'dashed', label: '' } },
        {
          selector: 'edge',
          style: {
            width: 1.5,
            'line-color': c.muted,
            'target-arrow-color': c.muted,
            'target-arrow-shape': 'triangle',
            'curve-style': 'bezier',
            label: 'data(label)',
            'font-size': FONT_PX - 1,
            color: c.muted,
            'text-rotation': 'autorotate',
            'text-background-color': c.bg,
            'text-background-opacity': 0.8,
          },
        },
      ],
    });
    cy.current = core;
    const onZoom = () => setLabelPx(Math.round(FONT_PX * core.zoom() * 10) / 10);
    core.on('zoom', onZoom);
    core.on('tap', 'node[?more]', (event) => {
      const data = event.target.data() as { of: string; direction: 'incoming' | 'outgoing' };
      more.current(data.of, data.direction);
    });
    core.on('tap', 'node[!more]', (event) => {
      const id = event.target.id() as string;
      setSelected(id);
      if (!graph.current.nodes.get(id)?.expanded) void expand(id);
    });
    core.on('dbltap', 'node[!more]', (event) => open.current(event.target.id() as string));
    void expand(node.uuid);
    return () => {
      core.destroy();
      cy.current = undefined;
    };
  }, [node.uuid, api]);

  const markers = moreMarkers(graph.current);
  const reset = () => {
    if (!cy.current) return;
    cy.current.elements().remove();
    graph.current = emptyGraph();
    setSelected(node.uuid);
    void expand(node.uuid);
  };
  const info = graph.current.nodes.get(selected);
  const omitted = graph.current.omitted.get(selected);
  return (
    <div class="bt-view" data-view="provenance" data-version={version}>
      <p class="bt-muted bt-graph-legend">
        <span class="bt-swatch bt-data" /> data <span class="bt-swatch bt-calculation" /> calculation{' '}
        <span class="bt-swatch bt-workflow" /> workflow — click a node to add its neighbours, double-click to
        open it.
      </p>
      <div class="bt-graph-controls" role="toolbar" aria-label="Graph view">
        <button type="button" class="bt-button" onClick={() => zoomBy(cy.current, 1.25)}>
          Zoom in
        </button>
        <button type="button" class="bt-button" onClick={() => zoomBy(cy.current, 0.8)}>
          Zoom out
        </button>
        <button type="button" class="bt-button" onClick={() => cy.current?.fit(undefined, 20)}>
          Fit
        </button>
        <button type="button" class="bt-button" onClick={() => reset()}>
          Reset
        </button>
      </div>
      <div
        ref={host}
        data-label-px={labelPx}
        class="bt-graph"
        data-testid="provenance-graph"
        role="img"
        aria-label={`Provenance graph around ${node.label || node.uuid}: ${graph.current.nodes.size} nodes, ${graph.current.edges.size} links; the list below has the same nodes`}
      />
      {state.loading && <Loading what="Loading the neighbourhood" />}
      {state.error && <ErrorMessage error={state.error} what="the neighbourhood" />}
      {info && (
        <p data-testid="graph-selection">
          Selected: <strong>{info.label.replace('\n', ' — ')}</strong>{' '}
          {selected !== node.uuid && (
            <button type="button" class="bt-button" onClick={() => onOpen(selected)}>
              Open
            </button>
          )}{' '}
          {omitted && (omitted.incoming > 0 || omitted.outgoing > 0) && (
            <span class="bt-muted">
              ({omitted.incoming} incoming and {omitted.outgoing} outgoing links not drawn)
            </span>
          )}
        </p>
      )}
      {markers.length > 0 && (
        <p class="bt-muted" data-testid="graph-more">
          Not drawn:{' '}
          {markers.map((m) => (
            <button
              key={m.id}
              type="button"
              class="bt-button bt-more"
              onClick={() => onMore(m.of, m.direction)}
            >
              {m.count.toLocaleString('en-US')} more {m.direction} of{' '}
              {(graph.current.nodes.get(m.of)?.label ?? m.of).split('\n')[0]}
            </button>
          ))}
        </p>
      )}
      <details>
        <summary>Nodes in the graph ({graph.current.nodes.size})</summary>
        <ul data-testid="graph-nodes">
          {[...graph.current.nodes.values()].map((n) => (
            <li key={n.id}>
              {n.label.replace('\n', ' — ')}{' '}
              {!n.expanded && (
                <button type="button" class="bt-button" onClick={() => void expand(n.id)}>
                  Expand
                </button>
              )}{' '}
              {n.id !== node.uuid && (
                <button type="button" class="bt-button" onClick={() => onOpen(n.id)}>
                  Open
                </button>
              )}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

/** Adds the new nodes and edges and lays the graph out again, keeping the expanded node in view. */
function draw(core: cytoscape.Core, graph: Graph, added: string[], around: string) {
  const elements: cytoscape.ElementDefinition[] = [];
  for (const id of added) {
    const n = graph.nodes.get(id);
    if (n)
      elements.push({
        group: 'nodes',
        data: { id: n.id, label: n.label, family: n.family, expanded: n.expanded },
      });
  }
  for (const e of graph.edges.values()) {
    if (core.getElementById(e.id).length === 0)
      elements.push({
        group: 'edges',
        data: { id: e.id, source: e.source, target: e.target, label: e.label },
      });
  }
  for (const m of moreMarkers(graph)) {
    if (core.getElementById(m.id).length > 0) continue;
    elements.push({
      group: 'nodes',
      data: {
        id: m.id,
        label: `${m.count.toLocaleString('en-US')} more`,
        more: true,
        of: m.of,
        direction: m.direction,
      },
    });
    const [source, target] = m.direction === 'incoming' ? [m.id, m.of] : [m.of, m.id];
    elements.push({ group: 'edges', data: { id: `${m.id}:edge`, source, target, label: '', more: true } });
  }
  core.add(elements);
  core.getElementById(around).data('expanded', true);
  core
    .layout({
      name: 'dagre',
      rankDir: 'TB',
      nodeSep: 12,
      rankSep: 70,
      // Two-line captions under the nodes take room; without this they overlap their neighbours.
      nodeDimensionsIncludeLabels: true,
      fit: true,
      padding: 20,
      // Too big to fit at a readable size: the expanded node stays in the middle, the rest is moved to.
      stop: () => {
        if (core.zoom() <= MIN_ZOOM + 1e-6) core.center(core.getElementById(around));
      },
    } as cytoscape.LayoutOptions)
    .run();
}

function zoomBy(core: cytoscape.Core | undefined, factor: number) {
  if (!core) return;
  const level = Math.min(core.maxZoom(), Math.max(core.minZoom(), core.zoom() * factor));
  core.zoom({ level, renderedPosition: { x: core.width() / 2, y: core.height() / 2 } });
}
