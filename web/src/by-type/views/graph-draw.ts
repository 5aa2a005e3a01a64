/**
 * The provenance graph's model put on cytoscape's canvas: nodes at the cells the layering gave them (cytoscape's
 * preset layout; nothing drawn is ever moved), captions kept up to date (left out when too small to read), and
 * the view fitted or moved to what a reader just asked for.
 */
import type cytoscape from 'cytoscape';
import { MIN_LABEL_PX, moreMarkers, nodeCaption, type Graph } from '../logic/graph.js';
import { bend, position, type Cell, type Layout } from '../logic/graph-layout.js';
import { movingView } from './graph-aim.js';
import { NODE_FONT } from './graph-style.js';

export const FIT_PADDING = 24;
/** The zoom at which captions are drawn at MIN_LABEL_PX on screen. */
export const READABLE_ZOOM = MIN_LABEL_PX / NODE_FONT;

export function captionOf(graph: Graph, formulas: Map<string, string>, id: string): string {
  const n = graph.nodes.get(id);
  if (!n) return id;
  return nodeCaption({ node_type: n.nodeType, node_label: n.name, id: n.pk }, formulas.get(id));
}

/** Adds what the model has and the canvas lacks; updates captions and the expanded mark of what it has. */
export function draw(
  core: cytoscape.Core,
  graph: Graph,
  layout: Layout,
  formulas: Map<string, string>,
): void {
  const add: cytoscape.ElementDefinition[] = [];
  for (const n of graph.nodes.values()) {
    const cell = layout.cells.get(n.id);
    if (!cell) continue;
    const label = captionOf(graph, formulas, n.id);
    const drawn = core.getElementById(n.id);
    if (drawn.length > 0) drawn.data({ label, expanded: n.expanded });
    else
      add.push({
        group: 'nodes',
        data: { id: n.id, label, family: n.family, expanded: n.expanded },
        position: position(cell),
      });
  }
  const markers = moreMarkers(graph);
  for (const m of markers) {
    const cell = layout.cells.get(m.id);
    if (!cell || core.getElementById(m.id).length > 0) continue;
    const what = m.direction === 'incoming' ? 'incoming' : 'outgoing';
    add.push({
      group: 'nodes',
      data: {
        id: m.id,
        label: `${m.count.toLocaleString('en-US')} more ${what}`,
        more: true,
        of: m.of,
        direction: m.direction,
      },
      position: position(cell),
    });
    const [source, target] = m.direction === 'incoming' ? [m.id, m.of] : [m.of, m.id];
    add.push({
      group: 'edges',
      data: { id: `${m.id}:edge`, source, target, label: '', more: true, bend: 0 },
    });
  }
  for (const e of graph.edges.values()) {
    const from = layout.cells.get(e.source);
    const to = layout.cells.get(e.target);
    if (!from || !to || core.getElementById(e.id).length > 0) continue;
    add.push({
      group: 'edges',
      data: {
        id: e.id,
        source: e.source,
        target: e.target,
        label: e.linkType ? `${e.label}\n${e.linkType}` : e.label,
        bend: bend(from, to),
        call: e.linkType.startsWith('call') ? true : undefined,
      },
    });
  }
  core.add(add);
}

/** The zoom at which `eles` would fill the frame. */
function fittingZoom(core: cytoscape.Core, eles: cytoscape.Collection): number {
  const box = eles.boundingBox();
  const w = Math.max(1, core.width() - 2 * FIT_PADDING);
  const h = Math.max(1, core.height() - 2 * FIT_PADDING);
  return Math.min(w / Math.max(1, box.w), h / Math.max(1, box.h));
}

/**
 * After an expansion: the whole graph when it fits at a readable size, else the expanded node with its
 * neighbours (smaller when they need it: they are what the reader asked to see).
 */
export function showAround(core: cytoscape.Core, id: string): void {
  const all = core.elements();
  movingView(core);
  if (fittingZoom(core, all) >= READABLE_ZOOM) {
    core.fit(all, FIT_PADDING);
    return;
  }
  const centre = core.getElementById(id);
  core.fit(centre.closedNeighborhood(), FIT_PADDING);
}

/** Moves the view the least that brings the node wholly into the frame. */
export function bringIntoView(core: cytoscape.Core, id: string): void {
  const el = core.getElementById(id);
  if (el.length === 0) return;
  const box = el.renderedBoundingBox();
  const pan = { ...core.pan() };
  if (box.x1 < 0) pan.x += -box.x1 + FIT_PADDING;
  else if (box.x2 > core.width()) pan.x -= box.x2 - core.width() + FIT_PADDING;
  if (box.y1 < 0) pan.y += -box.y1 + FIT_PADDING;
  else if (box.y2 > core.height()) pan.y -= box.y2 - core.height() + FIT_PADDING;
  core.pan(pan);
}

export function zoomBy(core: cytoscape.Core | undefined, factor: number): void {
  if (!core) return;
  const level = Math.min(core.maxZoom(), Math.max(core.minZoom(), core.zoom() * factor));
  core.zoom({ level, renderedPosition: { x: core.width() / 2, y: core.height() / 2 } });
}

/** The drawn node nearest `from` in a direction (for the arrow keys), or undefined when there is none. */
export function nearestInDirection(
  cells: Map<string, Cell>,
  from: string,
  direction: 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown',
  drawn: (id: string) => boolean,
): string | undefined {
  const at = cells.get(from);
  if (!at) return undefined;
  let best: { id: string; score: number } | undefined;
  for (const [id, cell] of cells) {
    if (id === from || !drawn(id)) continue;
    const dc = cell.col - at.col;
    const dr = cell.row - at.row;
    const [main, side] =
      direction === 'ArrowLeft'
        ? [-dc, dr]
        : direction === 'ArrowRight'
          ? [dc, dr]
          : direction === 'ArrowUp'
            ? [-dr, dc]
            : [dr, dc];
    if (main <= 0) continue;
    const score = main + 2 * Math.abs(side);
    if (!best || score < best.score) best = { id, score };
  }
  return best?.id;
}

/** Captions too small to read are left out (class `far`); the view shows the pointed-at node's over the frame. */
export function markFar(core: cytoscape.Core): void {
  const far = core.zoom() < READABLE_ZOOM;
  const wrong = far ? core.elements(':not(.far)') : core.elements('.far');
  if (wrong.length > 0) wrong.toggleClass('far', far);
}

/** Where the caption of a node too small to read is shown, over the frame, and what it says. */
export function tipAt(
  core: cytoscape.Core | undefined,
  id: string,
  graph: Graph,
  formulas: Map<string, string>,
): { x: number; y: number; text: string } | undefined {
  const el = core?.getElementById(id);
  if (!core || !el || el.length === 0) return undefined;
  const box = el.renderedBoundingBox();
  const text = el.data('more') ? String(el.data('label')) : captionOf(graph, formulas, id);
  return { x: Math.max(0, box.x1), y: box.y2 + 4, text };
}

const lastSize = new WeakMap<cytoscape.Core, { w: number; h: number }>();

/**
 * After the frame changed size (the details panel came or went, full screen): what was in view stays in view,
 * around the same middle, scaled to the new frame, so a fitted picture stays fitted.
 */
export function keepView(core: cytoscape.Core): void {
  const before = lastSize.get(core);
  core.resize();
  const w = core.width();
  const h = core.height();
  lastSize.set(core, { w, h });
  if (!before || before.w <= 0 || before.h <= 0 || w <= 0 || h <= 0) return;
  const zoom = core.zoom();
  const pan = core.pan();
  const middle = { x: (before.w / 2 - pan.x) / zoom, y: (before.h / 2 - pan.y) / zoom };
  const scale = Math.min(w / before.w, h / before.h);
  movingView(core);
  const level = Math.min(core.maxZoom(), Math.max(core.minZoom(), zoom * scale));
  core.viewport({ zoom: level, pan: { x: w / 2 - middle.x * level, y: h / 2 - middle.y * level } });
}
