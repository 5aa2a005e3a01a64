/**
 * Where each node of the provenance graph sits, as AiiDA's links read: a node's inputs (incoming input and create
 * links, what it was made from) in a layer (column) to its left, its outputs in one to its right, the process that
 * called it above it in its own column, the processes it called below it. Nodes sit on a grid of columns and rows.
 * Each expansion puts the new inputs and outputs in layers of their own: the nearest column on that side that
 * holds only neighbours of that same side of the expanded node's column, never the centre's column or one another
 * expansion started; a group longer than a column holds is split into sub-columns beside each other, and what
 * still does not fit waits behind "N more". Within a layer, nodes are ordered by the barycentre of their
 * neighbours in the layer they hang from, and a new group takes rows between those of its neighbours' groups, so
 * that links do not cross. Nothing already drawn moves. The grid is what keeps the picture free of crossings
 * through boxes: links are routed in the gaps between columns and rows (graph-routes.ts), whatever cells their
 * ends have. A whole-graph layered layout (ELK's `layered`, dagre) orders each layer afresh on every expansion
 * and moves the nodes a reader has already found: dagre takes no fixed positions, ELK's interactive mode keeps
 * only the order within layers (docs/explorer.md has the measurements). Pure: the view turns cells into pixels.
 */

import type { LabelEnd, LabelSlots } from './graph-routes.js';

export type Side = 'left' | 'right' | 'above' | 'below';

export interface Cell {
  col: number;
  row: number;
}

export interface Layout {
  cells: Map<string, Cell>;
  /** `col,row` → the node in that cell. */
  taken: Map<string, string>;
  /** Where each drawn link's label went (graph-routes.ts): chosen once, when the link is first drawn. */
  labels: Map<string, LabelEnd>;
  /** `node:side` → the link whose label is beside that side of that box. */
  slots: LabelSlots;
  /** Each column's x, fixed when the column is first drawn (graph-routes.ts's settleColumns). */
  colX: Map<number, number>;
  /** The x of the lane the links run along between column c and c + 1, by c; fixed when first needed. */
  lanes: Map<number, number>;
  /** Which expansion started each column: `col:side` of the boxes whose neighbours it holds, or `centre`. */
  owners: Map<number, string>;
}

export const emptyLayout = (): Layout => ({
  cells: new Map(),
  taken: new Map(),
  labels: new Map(),
  slots: new Map(),
  colX: new Map(),
  lanes: new Map(),
  owners: new Map(),
});

/** The side of the centre a neighbour goes to: call links vertical, every other link left to right. */
export function sideOf(direction: 'incoming' | 'outgoing', linkType: string): Side {
  const call = linkType.startsWith('call');
  if (direction === 'incoming') return call ? 'above' : 'left';
  return call ? 'below' : 'right';
}

const key = (col: number, row: number) => `${col},${row}`;

function put(layout: Layout, id: string, cell: Cell) {
  layout.cells.set(id, cell);
  layout.taken.set(key(cell.col, cell.row), id);
}

/** Rows of `col` that are free, nearest `row` first (ties: the upper one), within `lo` < r < `hi`, as many as asked. */
function freeRowsAround(
  layout: Layout,
  col: number,
  row: number,
  count: number,
  lo = -Infinity,
  hi = Infinity,
): number[] {
  const rows: number[] = [];
  const start = Math.min(hi - 1, Math.max(lo + 1, row));
  for (let d = 0; rows.length < count; d++) {
    const up = start - d;
    const down = start + d;
    if (up <= lo && down >= hi) break;
    for (const r of d === 0 ? [start] : [up, down]) {
      if (rows.length < count && r > lo && r < hi && !layout.taken.has(key(col, r))) rows.push(r);
    }
  }
  return rows.sort((a, b) => a - b);
}

/** Free rows of `col` going away from `row` upwards (step -1) or downwards (step 1), nearest first. */
function freeRowsToward(layout: Layout, col: number, row: number, step: 1 | -1, count: number): number[] {
  const rows: number[] = [];
  for (let r = row + step; rows.length < count; r += step) if (!layout.taken.has(key(col, r))) rows.push(r);
  return rows.sort((a, b) => a - b);
}

/** Most boxes a column holds before the next ones go to a sub-column beside it (the view sets it from the window). */
export const COLUMN_ROWS = 8;
/** Most sub-columns one expansion's neighbours on one side take; the rest wait behind "N more". */
export const SUB_COLUMNS = 2;

export interface PlaceOptions {
  /** Rows a column holds before it is split (COLUMN_ROWS). */
  rows?: number;
  /** Sub-columns one side of one expansion may take (SUB_COLUMNS); Infinity when the reader asked for all. */
  subColumns?: number;
  /** The drawn neighbours of a node (any direction), for ordering a layer by barycentre. */
  neighbours?: (id: string) => Iterable<string>;
}

/** The mean row of a node's neighbours that have a cell in `col` (undefined: none has). */
function barycentre(layout: Layout, id: string, col: number, options: PlaceOptions): number | undefined {
  let sum = 0;
  let n = 0;
  for (const other of options.neighbours?.(id) ?? []) {
    const cell = layout.cells.get(other);
    if (cell && cell.col === col) {
      sum += cell.row;
      n++;
    }
  }
  return n > 0 ? sum / n : undefined;
}

/**
 * The rows of `col` a new group hanging from `from` may take without its links crossing those of the boxes there:
 * below every box whose neighbours in `from`'s column sit above `from`, above every box whose sit below.
 */
function bounds(layout: Layout, col: number, from: Cell, options: PlaceOptions): [number, number] {
  let lo = -Infinity;
  let hi = Infinity;
  for (const [id, cell] of layout.cells) {
    if (cell.col !== col) continue;
    const b = barycentre(layout, id, from.col, options);
    if (b === undefined) continue;
    if (b < from.row) lo = Math.max(lo, cell.row);
    else if (b > from.row) hi = Math.min(hi, cell.row);
  }
  return lo < hi - 1 ? [lo, hi] : [-Infinity, Infinity];
}

/**
 * The rows a layer further away than the next column may take: above or below (whichever is nearer `from`) every
 * box of the columns in between, so that its links, which cross those columns in a row gap, cross no other link.
 */
function beyond(layout: Layout, from: Cell, col: number): [number, number] {
  let top = Infinity;
  let bottom = -Infinity;
  for (const cell of layout.cells.values()) {
    if (cell.col > Math.min(from.col, col) && cell.col < Math.max(from.col, col)) {
      top = Math.min(top, cell.row);
      bottom = Math.max(bottom, cell.row);
    }
  }
  if (top === Infinity) return [-Infinity, Infinity];
  return from.row - top < bottom - from.row ? [-Infinity, top] : [bottom, Infinity];
}

const columnSize = (layout: Layout, col: number): number =>
  [...layout.cells.values()].filter((c) => c.col === col).length;

/**
 * Places `fresh`, the new neighbours of `from` on one side, in layers of their own: the nearest column on that
 * side that is empty or holds only neighbours that side of boxes of `from`'s column (never a column another
 * expansion started, nor the centre's), split into sub-columns of `rows` boxes, at most `subColumns` of them.
 * Returns the ids it had no room for.
 */
function placeLayer(
  layout: Layout,
  from: Cell,
  side: 'left' | 'right',
  fresh: string[],
  options: PlaceOptions,
): string[] {
  const step = side === 'left' ? -1 : 1;
  const owner = `${from.col}:${side}`;
  const rows = options.rows ?? COLUMN_ROWS;
  let left = fresh;
  let used = 0;
  for (
    let col = from.col + step;
    left.length > 0 && used < (options.subColumns ?? SUB_COLUMNS);
    col += step
  ) {
    const size = columnSize(layout, col);
    const mine = layout.owners.get(col) === owner;
    if (size > 0 && !mine) continue;
    if (size >= rows) {
      used++;
      continue;
    }
    layout.owners.set(col, owner);
    const [lo, hi] =
      Math.abs(col - from.col) > 1 ? beyond(layout, from, col) : bounds(layout, col, from, options);
    let cells = freeRowsAround(layout, col, from.row, Math.min(left.length, rows - size), lo, hi);
    if (cells.length === 0) cells = freeRowsAround(layout, col, from.row, Math.min(left.length, rows - size));
    cells.forEach((row, i) => put(layout, left[i]!, { col, row }));
    left = left.slice(cells.length);
    used++;
  }
  return left;
}

/**
 * Places the centre (at the origin when it is not drawn yet) and those of its neighbours that have no cell yet,
 * each group in the order given (the caller sorts them by link label), ordered by barycentre where some have
 * other drawn neighbours. Inputs and outputs go to layers of their own (`placeLayer`), callers and called
 * processes above and below in the centre's column. Returns the ids placed and, by side, those left for "N more".
 */
export function placeAround(
  layout: Layout,
  centre: string,
  groups: Partial<Record<Side, string[]>>,
  options: PlaceOptions = {},
): { placed: string[]; left: Partial<Record<Side, string[]>> } {
  const placed: string[] = [];
  const left: Partial<Record<Side, string[]>> = {};
  if (!layout.cells.has(centre)) {
    put(layout, centre, { col: 0, row: 0 });
    layout.owners.set(0, 'centre');
    placed.push(centre);
  }
  const at = layout.cells.get(centre)!;
  for (const side of ['left', 'right', 'above', 'below'] as const) {
    const given = [...new Set(groups[side] ?? [])].filter((id) => !layout.cells.has(id) && id !== centre);
    if (given.length === 0) continue;
    const order = new Map(given.map((id, i) => [id, i]));
    // Within a layer, by the mean row of their neighbours in the layer they hang from: fewer crossings.
    const weight = (id: string) => barycentre(layout, id, at.col, options) ?? at.row;
    const fresh = [...given].sort((a, b) => weight(a) - weight(b) || order.get(a)! - order.get(b)!);
    if (side === 'left' || side === 'right') {
      const rest = placeLayer(layout, at, side, fresh, options);
      if (rest.length > 0) left[side] = rest;
      placed.push(...fresh.filter((id) => !rest.includes(id)));
      continue;
    }
    const rows = freeRowsToward(layout, at.col, at.row, side === 'above' ? -1 : 1, fresh.length);
    fresh.forEach((id, i) => put(layout, id, { col: at.col, row: rows[i]! }));
    placed.push(...fresh);
  }
  return { placed, left };
}

/** Takes a node out of the grid (an "N more" marker that is no longer needed). */
export function removeFromLayout(layout: Layout, id: string): void {
  const cell = layout.cells.get(id);
  if (!cell) return;
  layout.cells.delete(id);
  if (layout.taken.get(key(cell.col, cell.row)) === id) layout.taken.delete(key(cell.col, cell.row));
}

/**
 * Grid pitch in model pixels where the columns' own widths are not known yet: columns are as wide as their boxes
 * and labels need (graph-routes.ts), rows are one pitch apart, room for a box of at most 60 and, in the gap, a
 * call link's label.
 */
export const COLUMN_WIDTH = 440;
export const ROW_HEIGHT = 88;

/** Where a cell's centre is drawn. */
export const position = (layout: Layout, cell: Cell): { x: number; y: number } => ({
  x: layout.colX.get(cell.col) ?? cell.col * COLUMN_WIDTH,
  y: cell.row * ROW_HEIGHT,
});
