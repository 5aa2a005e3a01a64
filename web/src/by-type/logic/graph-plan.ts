/**
 * What the provenance graph draws, worked out before cytoscape sees it: each box's caption cut to fit and the box
 * sized to it, each link's label cut to fit its gap and given a place beside one of its ends, each link's route.
 * The view turns the plan into cytoscape elements; the layout tests check the plan's geometry. Pure, given a way
 * to measure text.
 */
import { moreMarkers, nodeCaption, estimate, fitText, type Graph, type Measure } from './graph.js';
import { type Layout } from './graph-layout.js';
import {
  BOX_MAX_WIDTH,
  BOX_MIN_WIDTH,
  countSides,
  EDGE_LABEL_MAX_WIDTH,
  geometry,
  labelOffset,
  labelRoom,
  labelSide,
  placeLabel,
  routeOf,
  settleColumns,
  type LabelEnd,
  type LinkInput,
  type Size,
} from './graph-routes.js';
import type { DrawnEdge, DrawnNode, Point } from './graph-geometry.js';

/** Captions' size at zoom 1, in model pixels; the page's own node's is larger, to read at MIN_FOCUS_PX. */
export const NODE_FONT = 12;
export const FOCUS_FONT = 14.4;
/** Link labels: as large as captions, so that they too read at the caption limit. */
export const EDGE_FONT = 12;
export const LINE_HEIGHT = 1.15;
/** Room between a caption and its box's border, across and down. */
const PAD_X = 8;
const PAD_Y = 5;

export interface PlannedNode {
  id: string;
  caption: string;
  /** Whether any line of its caption was cut (its whole caption is then given on hover and focus). */
  cut: boolean;
  font: number;
  size: Size;
  /** The caption's own extent, centred in the box. */
  text: Size;
  more?: { of: string; direction: 'incoming' | 'outgoing'; count: number };
}

export interface PlannedEdge extends LinkInput {
  label: string;
  labelEnd: LabelEnd;
  labelOffset: number;
  turns: Point[];
  /** A call link (drawn dotted), or an "N more" box's. */
  kind: 'data' | 'call' | 'more';
}

export interface Plan {
  nodes: Map<string, PlannedNode>;
  edges: PlannedEdge[];
}

function planBox(
  id: string,
  full: string[],
  font: number,
  scale: number,
  measure: Measure,
): Omit<PlannedNode, 'more'> {
  const room = BOX_MAX_WIDTH * scale - 2 * PAD_X;
  const lines = full.map((line) => fitText(line, room, font, measure));
  const widest = Math.max(...lines.map((line) => measure(line, font)));
  const text = { w: widest, h: lines.length * font * LINE_HEIGHT };
  const w = Math.min(BOX_MAX_WIDTH * scale, Math.max(BOX_MIN_WIDTH * scale, Math.ceil(widest + 2 * PAD_X)));
  return {
    id,
    caption: lines.join('\n'),
    cut: lines.some((line, i) => line !== full[i]),
    font,
    size: { w, h: Math.ceil(text.h + 2 * PAD_Y) },
    text,
  };
}

/**
 * The plan of everything placed in `layout`. Link labels are placed the first time a link is planned and stay
 * there (recorded in the layout), as the boxes do.
 */
export function plan(
  graph: Graph,
  layout: Layout,
  formulas: Map<string, string>,
  centre: string,
  measure: Measure = estimate,
): Plan {
  const nodes = new Map<string, PlannedNode>();
  for (const n of graph.nodes.values()) {
    if (!layout.cells.has(n.id)) continue;
    const focus = n.id === centre;
    const font = focus ? FOCUS_FONT : NODE_FONT;
    const full = nodeCaption(
      { node_type: n.nodeType, node_label: n.name, id: n.pk },
      formulas.get(n.id),
    ).split('\n');
    nodes.set(n.id, planBox(n.id, full, font, focus ? FOCUS_FONT / NODE_FONT : 1, measure));
  }
  const edges: PlannedEdge[] = [];
  for (const m of moreMarkers(graph)) {
    if (!layout.cells.has(m.id) || !nodes.has(m.of)) continue;
    const box = planBox(
      m.id,
      [`${m.count.toLocaleString('en-US')} more ${m.direction}`],
      NODE_FONT,
      1,
      measure,
    );
    nodes.set(m.id, { ...box, more: { of: m.of, direction: m.direction, count: m.count } });
    const [source, target] = m.direction === 'incoming' ? [m.id, m.of] : [m.of, m.id];
    edges.push({ id: `${m.id}:edge`, source, target, labelWidth: 0, label: '', kind: 'more' } as PlannedEdge);
  }
  for (const e of graph.edges.values()) {
    if (!nodes.has(e.source) || !nodes.has(e.target)) continue;
    const label = e.label ? fitText(e.label, EDGE_LABEL_MAX_WIDTH, EDGE_FONT, measure) : '';
    edges.push({
      id: e.id,
      source: e.source,
      target: e.target,
      label,
      labelWidth: label ? Math.ceil(measure(label, EDGE_FONT)) + 4 : 0,
      kind: e.linkType.startsWith('call') ? 'call' : 'data',
    } as PlannedEdge);
  }
  const sides = countSides(layout, edges);
  const sizes = new Map([...nodes].map(([id, n]) => [id, n.size]));
  const slotWidths = new Map<string, number>();
  for (const e of edges) {
    let end = layout.labels.get(e.id);
    if (end === undefined) {
      end = placeLabel(layout, layout.slots, e, sides);
      layout.labels.set(e.id, end);
    }
    e.labelEnd = end;
    const side = labelSide(layout, e, end);
    if (!side) continue;
    const beside = end === 'source' ? e.source : e.target;
    // Beside a column drawn before, the label has the room its lane left.
    const room = labelRoom(layout, sizes, beside, side) - 4;
    if (e.labelWidth > room + 4) {
      const full = graph.edges.get(e.id)?.label ?? e.label;
      e.label = room >= 24 ? fitText(full, room, EDGE_FONT, measure) : '';
      e.labelWidth = e.label ? Math.ceil(measure(e.label, EDGE_FONT)) + 4 : 0;
      if (!e.label) e.labelEnd = 'none';
    }
    if (e.labelEnd !== 'none') slotWidths.set(`${beside}:${side}`, e.labelWidth);
  }
  settleColumns(layout, sizes, slotWidths);
  for (const e of edges) {
    e.labelOffset = labelOffset(layout, sizes, e, e.labelEnd);
    e.turns = routeOf(layout, e.source, e.target, sizes, slotWidths) ?? [];
  }
  return { nodes, edges };
}

/** The plan's geometry, for graph-geometry.ts's checks. */
export function planGeometry(layout: Layout, p: Plan): { nodes: DrawnNode[]; edges: DrawnEdge[] } {
  const sizes = new Map([...p.nodes].map(([id, n]) => [id, n.size]));
  const captions = new Map([...p.nodes].map(([id, n]) => [id, n.text]));
  return geometry(layout, sizes, captions, p.edges);
}
