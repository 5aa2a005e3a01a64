/**
 * The provenance neighbourhood from `/nodes/<uuid>/links/tree/`, as graph elements, and merging the trees of
 * expanded neighbours into one graph. Pure; the view hands the elements to cytoscape.
 */
import { sideOf, type Side } from './graph-layout.js';

export interface TreeNode {
  uuid: string;
  node_type: string;
  node_label?: string;
  id?: number;
  link_label?: string;
  link_type?: string;
  incoming?: TreeNode[];
  outgoing?: TreeNode[];
}

export interface TreeAnswer {
  nodes: TreeNode[];
  metadata?: Array<{
    total_no_of_incomings?: number;
    total_no_of_outgoings?: number;
    sent_no_of_incomings?: number;
    sent_no_of_outgoings?: number;
  }>;
}

export interface GraphNode {
  id: string;
  /** Its caption: type, label, pk, one a line. */
  label: string;
  /** Its own label (may be empty) and pk, for a formula to take the label's place. */
  name: string;
  pk?: number;
  nodeType: string;
  /** The colour class: data, calculation, workflow. */
  family: 'data' | 'calculation' | 'workflow' | 'other';
  /** Whether its own neighbourhood has been merged in. */
  expanded: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label: string;
  linkType: string;
}

export interface Graph {
  nodes: Map<string, GraphNode>;
  edges: Map<string, GraphEdge>;
  /** Neighbours the server left out of a tree (its limits), per expanded node. */
  omitted: Map<string, { incoming: number; outgoing: number }>;
}

export function family(nodeType: string): GraphNode['family'] {
  if (nodeType.startsWith('data.')) return 'data';
  if (nodeType.startsWith('process.calculation.')) return 'calculation';
  if (nodeType.startsWith('process.workflow.')) return 'workflow';
  return 'other';
}

/** "StructureData" from "data.core.structure.StructureData.". */
export function shortType(nodeType: string): string {
  const parts = nodeType.split('.').filter(Boolean);
  return parts[parts.length - 1] ?? nodeType;
}

/** A text's drawn width in model pixels at a font size; the view measures with the canvas. */
export type Measure = (text: string, font: number) => number;

/** An estimate for where there is no canvas (tests, the first draw): an average glyph of 0.58 em. */
export const estimate: Measure = (text, font) => text.length * font * 0.58;

/** `text` cut with an ellipsis to fit `width`, or whole when it fits. */
export function fitText(text: string, width: number, font: number, measure: Measure = estimate): string {
  if (measure(text, font) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${text.slice(0, mid).trimEnd()}…`, font) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo).trimEnd()}…`;
}

/**
 * A box's caption: its type, its own label (or, where it has none, its formula), its pk, one a line, each cut to
 * `width` with an ellipsis (the details panel and the hover title have the whole label).
 */
export function nodeCaption(
  n: { node_type: string; node_label?: string; id?: number },
  formula?: string,
  fit?: { width: number; font: number; measure?: Measure },
): string {
  const name = n.node_label || formula || '';
  const lines = [shortType(n.node_type), name, n.id !== undefined ? `pk ${n.id}` : ''].filter(Boolean);
  return lines.map((line) => (fit ? fitText(line, fit.width, fit.font, fit.measure) : line)).join('\n');
}

/** A caption on one line, for lists and the details panel. */
export const oneLine = (caption: string): string => caption.split('\n').join(' · ');

export const emptyGraph = (): Graph => ({ nodes: new Map(), edges: new Map(), omitted: new Map() });

/** Adds a tree answer (the centre and its neighbours) to the graph; returns the uuids it added. */
export function mergeTree(graph: Graph, tree: TreeAnswer): string[] {
  const added: string[] = [];
  const centre = tree.nodes[0];
  if (!centre) return added;
  const addNode = (n: TreeNode, expanded: boolean) => {
    const known = graph.nodes.get(n.uuid);
    if (known) {
      known.expanded ||= expanded;
      return;
    }
    graph.nodes.set(n.uuid, {
      id: n.uuid,
      label: nodeCaption(n),
      name: n.node_label ?? '',
      pk: n.id,
      nodeType: n.node_type,
      family: family(n.node_type),
      expanded,
    });
    added.push(n.uuid);
  };
  const addEdge = (source: string, target: string, n: TreeNode) => {
    const label = n.link_label ?? '';
    const linkType = n.link_type ?? '';
    const id = `${source}>${target}:${linkType}:${label}`;
    if (!graph.edges.has(id)) graph.edges.set(id, { id, source, target, label, linkType });
  };
  addNode(centre, true);
  for (const n of centre.incoming ?? []) {
    addNode(n, false);
    addEdge(n.uuid, centre.uuid, n);
  }
  for (const n of centre.outgoing ?? []) {
    addNode(n, false);
    addEdge(centre.uuid, n.uuid, n);
  }
  const m = tree.metadata?.[0];
  if (m) {
    graph.omitted.set(centre.uuid, {
      incoming: Math.max(0, (m.total_no_of_incomings ?? 0) - (m.sent_no_of_incomings ?? 0)),
      outgoing: Math.max(0, (m.total_no_of_outgoings ?? 0) - (m.sent_no_of_outgoings ?? 0)),
    });
  }
  return added;
}

/** The nodes linked to `id` either way, as far as the graph knows. */
export function neighboursOf(graph: Graph, id: string): string[] {
  const found: string[] = [];
  for (const e of graph.edges.values()) {
    if (e.source === id) found.push(e.target);
    else if (e.target === id) found.push(e.source);
  }
  return found;
}

/** The neighbours of a tree's centre by the side they are drawn on, each side in link-label order. */
export function neighbourSides(tree: TreeAnswer): Record<Side, string[]> {
  const sides: Record<Side, string[]> = { left: [], right: [], above: [], below: [] };
  const centre = tree.nodes[0];
  if (!centre) return sides;
  for (const direction of ['incoming', 'outgoing'] as const) {
    const sorted = [...(centre[direction] ?? [])].sort((a, b) =>
      (a.link_label ?? '').localeCompare(b.link_label ?? ''),
    );
    for (const n of sorted) sides[sideOf(direction, n.link_type ?? '')].push(n.uuid);
  }
  return sides;
}

/** Neighbours drawn per direction when a node is expanded; the rest are one "N more" marker on the canvas. */
export const NEIGHBOURS_PER_DIRECTION = 8;

/** The smallest size a caption is drawn at on screen, in CSS pixels: the view never zooms out further. */
export const MIN_LABEL_PX = 10;
/** The page's own node's caption is drawn at least this large. */
export const MIN_FOCUS_PX = 12;

export interface MoreMarker {
  /** The marker's own element id. */
  id: string;
  /** The node whose links were left out. */
  of: string;
  direction: 'incoming' | 'outgoing';
  count: number;
}

/** One marker per expanded node and direction with links the server left out of its tree. */
export function moreMarkers(graph: Graph): MoreMarker[] {
  const markers: MoreMarker[] = [];
  for (const [of, left] of graph.omitted) {
    for (const direction of ['incoming', 'outgoing'] as const) {
      const count = left[direction];
      if (count > 0) markers.push({ id: `more:${direction}:${of}`, of, direction, count });
    }
  }
  return markers;
}
