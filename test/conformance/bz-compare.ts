/**
 * Brillouin zones compared as solids: seekpath lists faces, triangles and vertices in qhull's order, Quarry
 * in its own. The same zone has the same vertices, the same faces (as sets of vertices), triangles that
 * cover the faces' area, and triangles facing outwards.
 */
type Vec = number[];
interface FacesData {
  faces: Vec[][];
  triangles: number[][];
  triangles_vertices: Vec[];
}

const sub = (a: Vec, b: Vec) => a.map((x, i) => x - (b[i] as number));
const cross = (a: Vec, b: Vec) => [
  a[1]! * b[2]! - a[2]! * b[1]!,
  a[2]! * b[0]! - a[0]! * b[2]!,
  a[0]! * b[1]! - a[1]! * b[0]!,
];
const length = (a: Vec) => Math.hypot(...a);
const close = (a: Vec, b: Vec) => length(sub(a, b)) <= 1e-8 * Math.max(1, length(a));

function sameSet(a: Vec[], b: Vec[]): boolean {
  return a.length === b.length && a.every((p) => b.some((q) => close(p, q)));
}

function polygonArea(points: Vec[]): number {
  let sum = [0, 0, 0];
  for (let i = 1; i + 1 < points.length; i++) {
    sum = sum.map((x, k) => x + cross(sub(points[i]!, points[0]!), sub(points[i + 1]!, points[0]!))[k]!);
  }
  return length(sum) / 2;
}

export function zoneDifference(expected: FacesData, actual: FacesData): string | undefined {
  if (!sameSet(expected.triangles_vertices, actual.triangles_vertices))
    return 'the zones have other vertices';
  if (expected.faces.length !== actual.faces.length) {
    return `${actual.faces.length} faces, expected ${expected.faces.length}`;
  }
  const missing = expected.faces.find((face) => !actual.faces.some((other) => sameSet(face, other)));
  if (missing) return `a face of the reference is missing: ${JSON.stringify(missing)}`;
  const area = (faces: Vec[][]) => faces.reduce((s, f) => s + polygonArea(f), 0);
  const triangles = actual.triangles.map((t) => t.map((i) => actual.triangles_vertices[i] as Vec));
  if (Math.abs(area(triangles) - area(expected.faces)) > 1e-8 * area(expected.faces)) {
    return 'the triangles do not cover the faces';
  }
  const inward = triangles.find(([a, b, c]) => {
    const normal = cross(sub(b!, a!), sub(c!, a!));
    return normal.reduce((s, x, k) => s + x * (a![k]! + b![k]! + c![k]!), 0) <= 0;
  });
  return inward ? 'a triangle faces inwards' : undefined;
}
