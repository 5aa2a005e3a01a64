/**
 * The first Brillouin zone of a reciprocal lattice: the points closer to the origin than to any other lattice
 * point. Built by cutting a box with the bisecting plane of every lattice vector up to three steps away (as
 * seekpath's get_BZ considers), giving the faces as ordered polygons, outward triangles and their vertices:
 * the `faces_data` of k-points' derived properties. The same solid as seekpath's; faces and vertices may be
 * listed in another order (seekpath takes theirs from qhull).
 */
type Vec = [number, number, number];

const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: Vec, b: Vec): Vec => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: Vec, s: number): Vec => [a[0] * s, a[1] * s, a[2] * s];
const cross = (a: Vec, b: Vec): Vec => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const norm = (a: Vec) => Math.sqrt(dot(a, a));

/** A convex polyhedron as its faces, each an ordered polygon with its outward normal. */
interface Face {
  normal: Vec;
  points: Vec[];
}

/** Keep the part of a polygon on the side where dot(p, n) <= d (Sutherland–Hodgman). */
function clipPolygon(points: Vec[], n: Vec, d: number, eps: number): { kept: Vec[]; cut: Vec[] } {
  const kept: Vec[] = [];
  const cut: Vec[] = [];
  points.forEach((p, i) => {
    const q = points[(i + 1) % points.length] as Vec;
    const [dp, dq] = [dot(p, n) - d, dot(q, n) - d];
    if (dp <= eps) kept.push(p);
    if (dp <= eps && Math.abs(dp) <= eps) cut.push(p);
    if ((dp < -eps && dq > eps) || (dp > eps && dq < -eps)) {
      const point = add(p, scale(sub(q, p), dp / (dp - dq)));
      kept.push(point);
      cut.push(point);
    }
  });
  return { kept, cut };
}

/** Points of one plane, ordered counter-clockwise seen from outside (along the normal), duplicates merged. */
function orderAround(points: Vec[], normal: Vec, eps: number): Vec[] {
  const unique: Vec[] = [];
  for (const p of points) if (!unique.some((q) => norm(sub(p, q)) <= eps)) unique.push(p);
  const center = scale(unique.reduce(add, [0, 0, 0] as Vec), 1 / unique.length);
  const u = sub(unique[0] as Vec, center);
  const v = cross(normal, u);
  const angle = (p: Vec) => Math.atan2(dot(sub(p, center), v), dot(sub(p, center), u));
  return unique.sort((a, b) => angle(a) - angle(b));
}

function cut(faces: Face[], n: Vec, d: number, eps: number): Face[] {
  const out: Face[] = [];
  const capPoints: Vec[] = [];
  for (const face of faces) {
    const { kept, cut: onPlane } = clipPolygon(face.points, n, d, eps);
    capPoints.push(...onPlane);
    if (kept.length >= 3) out.push({ normal: face.normal, points: kept });
  }
  const unit = scale(n, 1 / norm(n));
  const cap = capPoints.length >= 3 ? orderAround(capPoints, unit, eps) : [];
  if (cap.length >= 3) out.push({ normal: unit, points: cap });
  return out;
}

export interface FacesData {
  faces: number[][][];
  triangles: number[][];
  triangles_vertices: number[][];
}

export function brillouinZone(b1: Vec, b2: Vec, b3: Vec): FacesData {
  const size = Math.max(norm(b1), norm(b2), norm(b3));
  const eps = size * 1e-9;
  const box = 2 * (norm(b1) + norm(b2) + norm(b3));
  const axes: Vec[] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  // A cube around the origin large enough to hold the zone, as six faces.
  let faces: Face[] = axes.flatMap((a, i) => {
    const [u, v] = [axes[(i + 1) % 3] as Vec, axes[(i + 2) % 3] as Vec];
    return [1, -1].map((s): Face => {
      const c = scale(a, s * box);
      const corners = [
        [1, 1],
        [-1, 1],
        [-1, -1],
        [1, -1],
      ].map(([x, y]) => add(c, add(scale(u, x! * box), scale(v, y! * box))));
      return { normal: scale(a, s), points: s > 0 ? corners : corners.reverse() };
    });
  });
  const vectors: Vec[] = [];
  for (let i = -3; i <= 3; i++)
    for (let j = -3; j <= 3; j++)
      for (let k = -3; k <= 3; k++) {
        if (i === 0 && j === 0 && k === 0) continue;
        vectors.push(add(add(scale(b1, i), scale(b2, j)), scale(b3, k)));
      }
  vectors.sort((a, b) => dot(a, a) - dot(b, b));
  for (const g of vectors) faces = cut(faces, g, dot(g, g) / 2, eps);

  const vertices: Vec[] = [];
  const indexOf = (p: Vec) => {
    let i = vertices.findIndex((q) => norm(sub(p, q)) <= eps * 10);
    if (i < 0) i = vertices.push(p) - 1;
    return i;
  };
  const polygons = faces.map((f) => orderAround(f.points, f.normal, eps * 10));
  const triangles = polygons.flatMap((polygon) => {
    const ids = polygon.map(indexOf);
    return ids.slice(1, -1).map((id, k) => [ids[0] as number, id, ids[k + 2] as number]);
  });
  return { faces: polygons, triangles, triangles_vertices: vertices };
}
