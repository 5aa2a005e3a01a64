/**
 * How each link of the provenance graph is drawn between the grid's boxes: an orthogonal route that runs only in
 * the gaps between columns and between rows, so that no link ever passes through a box other than its ends,
 * whatever cells the layering gave them; and where its label sits: beside one of its two boxes, in the gap the
 * link leaves that box by, one label per box and side, so that no two labels meet. Pure: sizes come from the
 * caller (the view measures captions with the canvas), and the result is what the view hands to cytoscape and
 * what the tests check with graph-geometry.ts.
 */
import type { Box, DrawnEdge, DrawnNode, Point } from './graph-geometry.js';
import { ROW_HEIGHT, position, type Layout } from './graph-layout.js';

export interface Size {
  w: number;
  h: number;
}

/** The widest a box is drawn (the page's own node 1.2 times as wide), and the narrowest. */
export const BOX_MAX_WIDTH = 170;
export const BOX_MIN_WIDTH = 96;
/** The widest an edge label is drawn (about 16 characters); a column's gap is as wide as its labels need. */
export const EDGE_LABEL_MAX_WIDTH = 104;
/** Space between a box's side and the label beside it (cytoscape starts a link a few pixels inside the border). */
const LABEL_GAP = 10;
/** An edge label's height: one line of EDGE_FONT on its backdrop. */
export const EDGE_LABEL_HEIGHT = 16;

export interface LinkInput {
  id: string;
  source: string;
  target: string;
  /** The label's width as drawn (0: no label). */
  labelWidth: number;
}

/** Where a link's label is: beside its source, beside its target, or (no room) not drawn. */
export type LabelEnd = 'source' | 'target' | 'none';

export interface Route {
  /** The turns between the source's centre and the target's (the source's and target's centres excluded). */
  turns: Point[];
  labelEnd: LabelEnd;
  /** How far along the link, from the box it is beside, the label's centre is. */
  labelOffset: number;
}

/** Labels placed so far: `node:side` → the link whose label is there; kept so that a new link never takes one. */
export type LabelSlots = Map<string, string>;

type Exit = 'left' | 'right' | 'top' | 'bottom';

/** The sides a link leaves its source by and enters its target by. */
function exits(s: { col: number; row: number }, t: { col: number; row: number }): [Exit, Exit] {
  if (t.col > s.col) return ['right', 'left'];
  if (t.col < s.col) return ['left', 'right'];
  if (t.row === s.row + 1) return ['bottom', 'top'];
  if (t.row === s.row - 1) return ['top', 'bottom'];
  // Further up or down in one column: out to the column gap on the right, along it, and back in.
  return ['right', 'right'];
}

/** Room between a lane and the boxes or labels beside it. */
const LANE_MARGIN = 12;
/** The least room a column keeps for labels beside its boxes, even when it has none yet. */
const MIN_LABEL_ROOM = 64;

/** How far right (or left) of its x a column's boxes and the labels beside them reach. */
function reach(
  layout: Layout,
  sizes: Map<string, Size>,
  slotWidths: Map<string, number>,
  col: number,
  side: 'left' | 'right',
) {
  let most = BOX_MAX_WIDTH / 2 + LABEL_GAP + MIN_LABEL_ROOM;
  for (const [id, cell] of layout.cells) {
    if (cell.col !== col) continue;
    const half = (sizes.get(id)?.w ?? BOX_MAX_WIDTH) / 2;
    const label = slotWidths.get(`${id}:${side}`) ?? 0;
    most = Math.max(most, half + (label > 0 ? LABEL_GAP + label : 0));
  }
  return most;
}

/** The lane between column c and c + 1: fixed from column c's (or c + 1's) reach the first time it is asked. */
function lane(layout: Layout, sizes: Map<string, Size>, slotWidths: Map<string, number>, c: number): number {
  const known = layout.lanes.get(c);
  if (known !== undefined) return known;
  const left = layout.colX.get(c);
  const x =
    left !== undefined
      ? left + reach(layout, sizes, slotWidths, c, 'right') + LANE_MARGIN
      : layout.colX.get(c + 1)! - reach(layout, sizes, slotWidths, c + 1, 'left') - LANE_MARGIN;
  layout.lanes.set(c, x);
  return x;
}

/**
 * Gives each column not yet drawn its x: beside its drawn neighbour, as far as the neighbour's boxes and labels
 * and its own need, so that a column of short labels is narrow and one of long labels wide. Drawn columns and
 * lanes never move; a label added later beside a drawn column is cut to the room there is (`labelRoom`).
 */
export function settleColumns(
  layout: Layout,
  sizes: Map<string, Size>,
  slotWidths: Map<string, number>,
): void {
  const cols = [...new Set([...layout.cells.values()].map((c) => c.col))];
  if (layout.colX.size === 0 && cols.length > 0) layout.colX.set(cols.includes(0) ? 0 : cols[0]!, 0);
  for (let placed = true; placed;) {
    placed = false;
    for (const col of cols) {
      if (layout.colX.has(col)) continue;
      if (layout.colX.has(col - 1)) {
        const x =
          lane(layout, sizes, slotWidths, col - 1) +
          LANE_MARGIN +
          reach(layout, sizes, slotWidths, col, 'left');
        layout.colX.set(col, x);
        placed = true;
      } else if (layout.colX.has(col + 1)) {
        const x =
          lane(layout, sizes, slotWidths, col) - LANE_MARGIN - reach(layout, sizes, slotWidths, col, 'right');
        layout.colX.set(col, x);
        placed = true;
      }
    }
  }
}

/** The widest a label beside `side` of the box `id` may be, given the lane on that side (fixed or not yet). */
export function labelRoom(
  layout: Layout,
  sizes: Map<string, Size>,
  id: string,
  side: 'left' | 'right',
): number {
  const cell = layout.cells.get(id);
  if (!cell) return 0;
  const c = side === 'right' ? cell.col : cell.col - 1;
  const fixed = layout.lanes.get(c);
  if (fixed === undefined) return EDGE_LABEL_MAX_WIDTH;
  const x = position(layout, cell).x;
  const half = (sizes.get(id)?.w ?? BOX_MAX_WIDTH) / 2;
  const room =
    side === 'right'
      ? fixed - LANE_MARGIN - (x + half + LABEL_GAP)
      : x - half - LABEL_GAP - (fixed + LANE_MARGIN);
  return Math.min(EDGE_LABEL_MAX_WIDTH, Math.max(0, room));
}

/** The route of a link from its cells; `undefined` when either end has no cell. Columns must be settled. */
export function routeOf(
  layout: Layout,
  source: string,
  target: string,
  sizes: Map<string, Size>,
  slotWidths: Map<string, number>,
): Point[] | undefined {
  const s = layout.cells.get(source);
  const t = layout.cells.get(target);
  if (!s || !t) return undefined;
  const from = position(layout, s);
  const to = position(layout, t);
  const [out, into] = exits(s, t);
  if (out === 'top' || out === 'bottom') return [];
  const laneOut = lane(layout, sizes, slotWidths, out === 'right' ? s.col : s.col - 1);
  const laneIn = lane(layout, sizes, slotWidths, into === 'left' ? t.col - 1 : t.col);
  if (laneOut === laneIn)
    return [
      { x: laneOut, y: from.y },
      { x: laneOut, y: to.y },
    ];
  // Columns apart: down (or up) the gap beside the source to the row gap above the target's row, along it to the
  // gap beside the target, then into the target.
  const rowGap = to.y - ROW_HEIGHT / 2;
  return [
    { x: laneOut, y: from.y },
    { x: laneOut, y: rowGap },
    { x: laneIn, y: rowGap },
    { x: laneIn, y: to.y },
  ];
}

/** The side of its box a link's label at `end` is beside (undefined: in the row gap, or none). */
export function labelSide(layout: Layout, link: LinkInput, end: LabelEnd): 'left' | 'right' | undefined {
  const s = layout.cells.get(link.source);
  const t = layout.cells.get(link.target);
  if (!s || !t || end === 'none') return undefined;
  const [out, into] = exits(s, t);
  if (out === 'top' || out === 'bottom') return undefined;
  return (end === 'source' ? out : into) as 'left' | 'right';
}

/**
 * Chooses where a new link's label goes: beside the end that has fewer links on that side (a hub's many links
 * take their labels beside the many other ends), else beside the other end, else nowhere; records the choice.
 */
export function placeLabel(
  layout: Layout,
  slots: LabelSlots,
  link: LinkInput,
  linksBySide: Map<string, number>,
): LabelEnd {
  if (link.labelWidth <= 0) return 'none';
  const s = layout.cells.get(link.source);
  const t = layout.cells.get(link.target);
  if (!s || !t) return 'none';
  const [out, into] = exits(s, t);
  // A link between two rows of one column has its label in the row gap, which is its own.
  if (out === 'top' || out === 'bottom') return 'source';
  const ends: Array<[LabelEnd, string]> = [
    ['source', `${link.source}:${out}`],
    ['target', `${link.target}:${into}`],
  ];
  ends.sort((a, b) => (linksBySide.get(a[1]) ?? 0) - (linksBySide.get(b[1]) ?? 0));
  for (const [end, slot] of ends) {
    const holder = slots.get(slot);
    if (holder === undefined || holder === link.id) {
      slots.set(slot, link.id);
      return end;
    }
  }
  return 'none';
}

/** How many links leave or enter each box by each side: `node:side` → count. */
export function countSides(
  layout: Layout,
  links: Array<{ source: string; target: string }>,
): Map<string, number> {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const l of links) {
    const s = layout.cells.get(l.source);
    const t = layout.cells.get(l.target);
    if (!s || !t) continue;
    const [out, into] = exits(s, t);
    bump(`${l.source}:${out}`);
    bump(`${l.target}:${into}`);
  }
  return counts;
}

const boxAt = (p: Point, size: Size): Box => ({
  x1: p.x - size.w / 2,
  x2: p.x + size.w / 2,
  y1: p.y - size.h / 2,
  y2: p.y + size.h / 2,
});

/** Where the label of a link placed at `end` is drawn, as a box, in model coordinates. */
export function labelBox(
  layout: Layout,
  sizes: Map<string, Size>,
  link: LinkInput,
  end: LabelEnd,
): Box | undefined {
  if (end === 'none') return undefined;
  const s = layout.cells.get(link.source)!;
  const t = layout.cells.get(link.target)!;
  const [out, into] = exits(s, t);
  const w = link.labelWidth;
  const h = EDGE_LABEL_HEIGHT;
  const from = position(layout, s);
  const to = position(layout, t);
  if (out === 'top' || out === 'bottom') {
    // In the middle of the row gap between the two boxes.
    const ss = sizes.get(link.source)!;
    const ts = sizes.get(link.target)!;
    const y =
      out === 'bottom'
        ? (from.y + ss.h / 2 + to.y - ts.h / 2) / 2
        : (from.y - ss.h / 2 + to.y + ts.h / 2) / 2;
    return { x1: from.x - w / 2, x2: from.x + w / 2, y1: y - h / 2, y2: y + h / 2 };
  }
  const [at, side, size] =
    end === 'source' ? [from, out, sizes.get(link.source)!] : [to, into, sizes.get(link.target)!];
  const edge = side === 'right' ? at.x + size.w / 2 + LABEL_GAP : at.x - size.w / 2 - LABEL_GAP - w;
  return { x1: edge, x2: edge + w, y1: at.y - h / 2, y2: at.y + h / 2 };
}

/** The distance along the link from its end's border to its label's centre (cytoscape's `*-text-offset`). */
export function labelOffset(
  layout: Layout,
  sizes: Map<string, Size>,
  link: LinkInput,
  end: LabelEnd,
): number {
  if (end === 'none') return 0;
  const s = layout.cells.get(link.source)!;
  const t = layout.cells.get(link.target)!;
  const [out] = exits(s, t);
  if (out === 'top' || out === 'bottom') return 0;
  return LABEL_GAP + link.labelWidth / 2;
}

/** The whole picture as geometry: boxes (with captions centred in them) and routes clipped at the boxes. */
export function geometry(
  layout: Layout,
  sizes: Map<string, Size>,
  captions: Map<string, Size>,
  links: Array<LinkInput & { turns: Point[]; labelEnd: LabelEnd }>,
): { nodes: DrawnNode[]; edges: DrawnEdge[] } {
  const nodes: DrawnNode[] = [];
  for (const [id, cell] of layout.cells) {
    const size = sizes.get(id);
    if (!size) continue;
    const p = position(layout, cell);
    const caption = captions.get(id);
    nodes.push({ id, box: boxAt(p, size), caption: caption ? boxAt(p, caption) : undefined });
  }
  const edges: DrawnEdge[] = [];
  for (const link of links) {
    const s = position(layout, layout.cells.get(link.source)!);
    const t = position(layout, layout.cells.get(link.target)!);
    const path = [s, ...link.turns, t];
    // From border to border: the parts inside the two ends are not drawn.
    path[0] = clipToBox(path[0]!, path[1]!, boxAt(s, sizes.get(link.source)!));
    const n = path.length - 1;
    path[n] = clipToBox(path[n]!, path[n - 1]!, boxAt(t, sizes.get(link.target)!));
    edges.push({
      id: link.id,
      source: link.source,
      target: link.target,
      path,
      label: labelBox(layout, sizes, link, link.labelEnd),
    });
  }
  return { nodes, edges };
}

/** Where the segment from `inside` (a box's centre) towards `toward` leaves the box. */
function clipToBox(inside: Point, toward: Point, box: Box): Point {
  const dx = toward.x - inside.x;
  const dy = toward.y - inside.y;
  const tx = dx === 0 ? Infinity : ((dx > 0 ? box.x2 : box.x1) - inside.x) / dx;
  const ty = dy === 0 ? Infinity : ((dy > 0 ? box.y2 : box.y1) - inside.y) / dy;
  const t = Math.min(1, tx, ty);
  return { x: inside.x + t * dx, y: inside.y + t * dy };
}

/**
 * The turns as cytoscape's `segments` edges take them: each point as a weight along the line between the two
 * centres and a distance from it (with `edge-distances: node-position`).
 */
export function segmentData(
  from: Point,
  to: Point,
  turns: Point[],
): { weights: number[]; distances: number[] } {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const l2 = dx * dx + dy * dy;
  const l = Math.sqrt(l2);
  const weights: number[] = [];
  const distances: number[] = [];
  for (const p of turns) {
    const px = p.x - from.x;
    const py = p.y - from.y;
    weights.push((px * dx + py * dy) / l2);
    distances.push((-px * dy + py * dx) / l);
  }
  return { weights, distances };
}
