/**
 * The provenance graph's plan (logic/graph-plan.ts) put on cytoscape's canvas: nodes at the cells the layering
 * gave them (cytoscape's preset layout; nothing drawn is ever moved), boxes sized to their captions, links along
 * their routes with their labels beside one end, and the view fitted or moved to what a reader just asked for,
 * never below the zoom at which captions read at MIN_LABEL_PX.
 */
import type cytoscape from 'cytoscape';
import { MIN_LABEL_PX, nodeCaption, type Graph, type Measure } from '../logic/graph.js';
import { position, type Cell, type Layout } from '../logic/graph-layout.js';
import { NODE_FONT, plan } from '../logic/graph-plan.js';
import { segmentData } from '../logic/graph-routes.js';
import { movingView } from './graph-aim.js';
import { FONT_FAMILY } from './graph-style.js';

export const FIT_PADDING = 24;
/** The zoom at which captions are drawn at MIN_LABEL_PX on screen: the view's least zoom. */
export const READABLE_ZOOM = MIN_LABEL_PX / NODE_FONT;

export function captionOf(graph: Graph, formulas: Map<string, string>, id: string): string {
  const n = graph.nodes.get(id);
  if (!n) return id;
  return nodeCaption({ node_type: n.nodeType, node_label: n.name, id: n.pk }, formulas.get(id));
}

/** Text widths as the canvas draws them, in the graph's font. */
export function canvasMeasure(): Measure {
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return (text, font) => text.length * font * 0.6;
  const cache = new Map<string, number>();
  return (text, font) => {
    const key = `${font}|${text}`;
    let width = cache.get(key);
    if (width === undefined) {
      context.font = `${font}px ${FONT_FAMILY}`;
      width = context.measureText(text).width;
      cache.set(key, width);
    }
    return width;
  };
}

/** Adds what the plan has and the canvas lacks; updates captions, sizes and the expanded mark of what it has. */
export function draw(
  core: cytoscape.Core,
  graph: Graph,
  layout: Layout,
  formulas: Map<string, string>,
  centre: string,
  measure: Measure,
): void {
  const p = plan(graph, layout, formulas, centre, measure);
  const add: cytoscape.ElementDefinition[] = [];
  for (const n of p.nodes.values()) {
    const cell = layout.cells.get(n.id)!;
    const model = graph.nodes.get(n.id);
    const data = {
      id: n.id,
      label: n.caption,
      full: n.more ? n.caption : captionOf(graph, formulas, n.id),
      cut: n.cut,
      w: n.size.w,
      h: n.size.h,
      font: n.font,
      family: model?.family,
      expanded: model?.expanded,
      ...(n.more ? { more: true, of: n.more.of, direction: n.more.direction } : {}),
    };
    const drawn = core.getElementById(n.id);
    if (drawn.length > 0) drawn.data(data);
    else add.push({ group: 'nodes', data, position: position(layout, cell) });
  }
  for (const e of p.edges) {
    if (core.getElementById(e.id).length > 0) continue;
    const from = position(layout, layout.cells.get(e.source)!);
    const to = position(layout, layout.cells.get(e.target)!);
    const { weights, distances } = segmentData(from, to, e.turns);
    add.push({
      group: 'edges',
      data: {
        id: e.id,
        source: e.source,
        target: e.target,
        weights,
        distances,
        bent: e.turns.length > 0 ? true : undefined,
        label: e.label,
        mid: e.labelEnd === 'source' && e.turns.length === 0 ? e.label : '',
        atSource: e.labelEnd === 'source' && e.turns.length > 0 ? e.label : '',
        atTarget: e.labelEnd === 'target' ? e.label : '',
        offset: e.labelOffset,
        call: e.kind === 'call' ? true : undefined,
        more: e.kind === 'more' ? true : undefined,
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
 * Fits `eles` (all when none) in the frame, at the caption limit at least: when they do not fit there, the view
 * is at the limit, centred on `around` (or on their middle).
 */
export function fitReadable(core: cytoscape.Core, eles?: cytoscape.Collection, around?: string): void {
  const what = eles && eles.length > 0 ? eles : core.elements();
  movingView(core);
  if (fittingZoom(core, what) >= READABLE_ZOOM) {
    core.fit(what, FIT_PADDING);
    return;
  }
  // As much of the picture as the frame holds, around its middle, moved the least that shows `around` whole.
  const box = what.boundingBox();
  const zoom = Math.max(core.minZoom(), READABLE_ZOOM);
  const middle = { x: (box.x1 + box.x2) / 2, y: (box.y1 + box.y2) / 2 };
  core.viewport({
    zoom,
    pan: { x: core.width() / 2 - middle.x * zoom, y: core.height() / 2 - middle.y * zoom },
  });
  if (around) bringIntoView(core, around);
}

/**
 * After an expansion: the whole graph when it fits at a readable size, else the expanded node with its
 * neighbours when they do, else the expanded node in the middle at the caption limit.
 */
export function showAround(core: cytoscape.Core, id: string): void {
  const all = core.elements();
  if (fittingZoom(core, all) >= READABLE_ZOOM) return fitReadable(core, all);
  fitReadable(core, core.getElementById(id).closedNeighborhood(), id);
}

/** The frame height, in CSS pixels, that shows the whole picture at the caption limit, within `least`..`most`. */
export function wantedHeight(core: cytoscape.Core, least: number, most: number): number {
  const box = core.elements().boundingBox();
  return Math.round(Math.min(most, Math.max(least, box.h * READABLE_ZOOM + 2 * FIT_PADDING)));
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

/** Where the whole caption of a node drawn cut short is shown, over the frame, and what it says. */
export function tipAt(
  core: cytoscape.Core | undefined,
  id: string,
): { x: number; y: number; text: string } | undefined {
  const el = core?.getElementById(id);
  if (!core || !el || el.length === 0 || !el.data('cut')) return undefined;
  const box = el.renderedBoundingBox({ includeLabels: false, includeOverlays: false });
  return { x: Math.max(0, box.x1), y: box.y2 + 4, text: String(el.data('full')) };
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
