/**
 * What makes a drawn provenance graph readable, as geometry: an edge that runs through a box other than its two
 * ends, two edge labels on top of each other, a caption wider or taller than its box, a caption drawn smaller than
 * the limit. Pure and in model coordinates; the layout's unit tests feed it the layout's own boxes and routes, the
 * browser tests what cytoscape drew.
 */

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface DrawnNode {
  id: string;
  box: Box;
  /** Where its caption is drawn (absent: no caption). */
  caption?: Box;
}

export interface DrawnEdge {
  id: string;
  source: string;
  target: string;
  /** Its route, from the source's border to the target's, as a polyline. */
  path: Point[];
  /** Where its label is drawn (absent: no label). */
  label?: Box;
}

const overlap = (a: Box, b: Box, slack: number): boolean =>
  a.x1 < b.x2 - slack && b.x1 < a.x2 - slack && a.y1 < b.y2 - slack && b.y1 < a.y2 - slack;

/** Whether the segment p-q passes through the inside of box (shrunk by `slack`), by Liang-Barsky clipping. */
export function segmentCrossesBox(p: Point, q: Point, box: Box, slack = 1): boolean {
  const x1 = box.x1 + slack;
  const x2 = box.x2 - slack;
  const y1 = box.y1 + slack;
  const y2 = box.y2 - slack;
  if (x1 >= x2 || y1 >= y2) return false;
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const clips: Array<[number, number]> = [
    [-dx, p.x - x1],
    [dx, x2 - p.x],
    [-dy, p.y - y1],
    [dy, y2 - p.y],
  ];
  for (const [den, num] of clips) {
    if (den === 0) {
      if (num <= 0) return false;
      continue;
    }
    const t = num / den;
    if (den < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
  }
  return t1 - t0 > 1e-9;
}

/** Each edge that passes through a box not one of its ends: "edge through node". */
export function edgesThroughBoxes(nodes: DrawnNode[], edges: DrawnEdge[]): string[] {
  const found: string[] = [];
  for (const e of edges) {
    for (const n of nodes) {
      if (n.id === e.source || n.id === e.target) continue;
      const hit = e.path.some((p, i) => i > 0 && segmentCrossesBox(e.path[i - 1]!, p, n.box));
      if (hit) found.push(`${e.id} through ${n.id}`);
    }
  }
  return found;
}

/** Each pair of edge labels that overlap (by more than a pixel), and each label over a box. */
export function overlappingLabels(nodes: DrawnNode[], edges: DrawnEdge[]): string[] {
  const found: string[] = [];
  const labelled = edges.filter((e) => e.label);
  for (let i = 0; i < labelled.length; i++) {
    for (let j = i + 1; j < labelled.length; j++) {
      if (overlap(labelled[i]!.label!, labelled[j]!.label!, 1))
        found.push(`label of ${labelled[i]!.id} over label of ${labelled[j]!.id}`);
    }
    for (const n of nodes) {
      if (overlap(labelled[i]!.label!, n.box, 1)) found.push(`label of ${labelled[i]!.id} over ${n.id}`);
    }
  }
  return found;
}

/** Each caption that is not inside its box. */
export function overflowingCaptions(nodes: DrawnNode[], slack = 0.5): string[] {
  return nodes
    .filter(
      (n) =>
        n.caption &&
        (n.caption.x1 < n.box.x1 - slack ||
          n.caption.x2 > n.box.x2 + slack ||
          n.caption.y1 < n.box.y1 - slack ||
          n.caption.y2 > n.box.y2 + slack),
    )
    .map((n) => n.id);
}

/** The size a caption of `font` model pixels is drawn at on screen at `zoom`, in CSS pixels. */
export const screenPx = (font: number, zoom: number): number => font * zoom;

/** Every readability problem of a drawing, one line each (none: readable). */
export function problems(nodes: DrawnNode[], edges: DrawnEdge[]): string[] {
  return [
    ...edgesThroughBoxes(nodes, edges),
    ...overlappingLabels(nodes, edges),
    ...overflowingCaptions(nodes).map((id) => `caption of ${id} overflows its box`),
  ];
}

const orient = (a: Point, b: Point, c: Point): number =>
  Math.sign((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));

/** Whether segments p1-p2 and q1-q2 cross at a point inside both (touching and running along each other do not). */
function segmentsCross(p1: Point, p2: Point, q1: Point, q2: Point): boolean {
  const a = orient(p1, p2, q1);
  const b = orient(p1, p2, q2);
  const c = orient(q1, q2, p1);
  const d = orient(q1, q2, p2);
  return a * b < 0 && c * d < 0;
}

/** A route without repeated points and without turns that go straight on (a crossing there is a crossing). */
function straightened(path: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of path) {
    const last = out[out.length - 1];
    if (last && last.x === p.x && last.y === p.y) continue;
    if (out.length >= 2 && orient(out[out.length - 2]!, last!, p) === 0) out.pop();
    out.push(p);
  }
  return out;
}

/** How many times two links' routes cross each other (links that share lanes but do not cross count none). */
export function crossings(edges: DrawnEdge[]): number {
  const paths = edges.map((e) => straightened(e.path));
  let count = 0;
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const a = paths[i]!;
      const b = paths[j]!;
      for (let s = 1; s < a.length; s++)
        for (let t = 1; t < b.length; t++) if (segmentsCross(a[s - 1]!, a[s]!, b[t - 1]!, b[t]!)) count++;
    }
  }
  return count;
}
