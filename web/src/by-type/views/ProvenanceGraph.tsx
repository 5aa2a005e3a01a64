/**
 * The provenance graph of a node's neighbourhood (`links/tree`), drawn by cytoscape with a dagre layout. Clicking
 * a neighbour expands it (its own neighbourhood is fetched and added); double-clicking, or its "Open" button,
 * opens its page. The same nodes are listed below the picture, for keyboards and screen readers.
 */
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import { ErrorMessage } from '../../components/Problem.js';
import { Loading } from '../../components/Loading.js';
import type { ProvenanceGraphProps } from '../index.js';
import { emptyGraph, mergeTree, type Graph, type TreeAnswer } from '../logic/graph.js';
import './by-type.css';

cytoscape.use(dagre);

/** Neighbours fetched per direction for each expanded node; the server says how many it left out. */
const LIMIT = 20;

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

export default function ProvenanceGraph({ node, api, onOpen }: ProvenanceGraphProps) {
  const host = useRef<HTMLDivElement>(null);
  const cy = useRef<cytoscape.Core | undefined>(undefined);
  const graph = useRef<Graph>(emptyGraph());
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<{ loading?: string; error?: Error }>({ loading: node.uuid });
  const [selected, setSelected] = useState<string>(node.uuid);
  const open = useRef(onOpen);
  open.current = onOpen;

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
      // A lone node or two would otherwise be blown up to fill the frame.
      maxZoom: 1.6,
      minZoom: 0.1,
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'text-wrap': 'wrap',
            'text-max-width': '120px',
            'font-size': 10,
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
          selector: 'edge',
          style: {
            width: 1.5,
            'line-color': c.muted,
            'target-arrow-color': c.muted,
            'target-arrow-shape': 'triangle',
            'curve-style': 'bezier',
            label: 'data(label)',
            'font-size': 8,
            color: c.muted,
            'text-rotation': 'autorotate',
            'text-background-color': c.bg,
            'text-background-opacity': 0.8,
          },
        },
      ],
    });
    cy.current = core;
    core.on('tap', 'node', (event) => {
      const id = event.target.id() as string;
      setSelected(id);
      if (!graph.current.nodes.get(id)?.expanded) void expand(id);
    });
    core.on('dbltap', 'node', (event) => open.current(event.target.id() as string));
    void expand(node.uuid);
    return () => {
      core.destroy();
      cy.current = undefined;
    };
  }, [node.uuid, api]);

  const info = graph.current.nodes.get(selected);
  const omitted = graph.current.omitted.get(selected);
  return (
    <div class="bt-view" data-view="provenance" data-version={version}>
      <p class="bt-muted bt-graph-legend">
        <span class="bt-swatch bt-data" /> data <span class="bt-swatch bt-calculation" /> calculation{' '}
        <span class="bt-swatch bt-workflow" /> workflow — click a node to add its neighbours, double-click to
        open it.
      </p>
      <div
        ref={host}
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
    } as cytoscape.LayoutOptions)
    .run();
}
