/**
 * Where each node of the provenance graph sits, as AiiDA's links read: a node's inputs (incoming input and create
 * links, what it was made from) in the column to its left, its outputs in the column to its right, the process
 * that called it above it in its own column, the processes it called below it. Nodes sit on a grid of columns and
 * rows; an expansion places only the nodes new to the picture, in free cells as near the expanded node's row as
 * they can be, so that nothing already drawn moves. The grid is what keeps the picture free of crossings through
 * boxes: links are routed in the gaps between columns and rows (graph-routes.ts), whatever cells their ends have.
 * A whole-graph layered layout (ELK's `layered`, dagre) orders each layer afresh on every expansion and moves the
 * nodes a reader has already found: dagre takes no fixed positions, ELK's interactive mode keeps only the order
 * within layers. Pure: the view turns cells into pixels.
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
}

export const emptyLayout = (): Layout => ({
  cells: new Map(),
  taken: new Map(),
  labels: new Map(),
  slots: new Map(),
  colX: new Map(),
  lanes: new Map(),
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

/** Rows of `col` that are free, nearest `row` first (ties: the upper one), as many as asked. */
function freeRowsAround(layout: Layout, col: number, row: number, count: number): number[] {
  const rows: number[] = [];
  for (let d = 0; rows.length < count; d++) {
    for (const r of d === 0 ? [row] : [row - d, row + d]) {
      if (rows.length < count && !layout.taken.has(key(col, r))) rows.push(r);
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

/**
 * Places the centre (at the origin when it is not drawn yet) and those of its neighbours that have no cell yet,
 * each group in the order given (the caller sorts them: by link label, "N more" last). Returns the ids placed.
 */
export function placeAround(
  layout: Layout,
  centre: string,
  groups: Partial<Record<Side, string[]>>,
): string[] {
  const placed: string[] = [];
  if (!layout.cells.has(centre)) {
    put(layout, centre, { col: 0, row: 0 });
    placed.push(centre);
  }
  const at = layout.cells.get(centre)!;
  for (const side of ['left', 'right', 'above', 'below'] as const) {
    const fresh = [...new Set(groups[side] ?? [])].filter((id) => !layout.cells.has(id) && id !== centre);
    if (fresh.length === 0) continue;
    const col = side === 'left' ? at.col - 1 : side === 'right' ? at.col + 1 : at.col;
    const rows =
      side === 'above'
        ? freeRowsToward(layout, col, at.row, -1, fresh.length)
        : side === 'below'
          ? freeRowsToward(layout, col, at.row, 1, fresh.length)
          : freeRowsAround(layout, col, at.row, fresh.length);
    fresh.forEach((id, i) => put(layout, id, { col, row: rows[i]! }));
    placed.push(...fresh);
  }
  return placed;
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
