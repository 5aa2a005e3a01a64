/** Geometry of a periodic cell (rows are the lattice vectors a, b, c, in Å). Pure: runs in node and the browser. */

export type Vec3 = [number, number, number];
export type Cell = [Vec3, Vec3, Vec3];

export const dot = (u: Vec3, v: Vec3): number => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
export const norm = (u: Vec3): number => Math.sqrt(dot(u, u));
export const cross = (u: Vec3, v: Vec3): Vec3 => [
  u[1] * v[2] - u[2] * v[1],
  u[2] * v[0] - u[0] * v[2],
  u[0] * v[1] - u[1] * v[0],
];

const RAD = 180 / Math.PI;

/** The angle between two vectors in degrees; 0 when one of them is zero (a cell with a missing direction). */
export function angleDeg(u: Vec3, v: Vec3): number {
  const n = norm(u) * norm(v);
  if (n === 0) return 0;
  // Clamped: rounding can put the cosine a hair outside [-1, 1] for (anti)parallel vectors.
  return Math.acos(Math.min(1, Math.max(-1, dot(u, v) / n))) * RAD;
}

export interface CellParameters {
  a: number;
  b: number;
  c: number;
  /** Angle between b and c. */
  alpha: number;
  /** Angle between a and c. */
  beta: number;
  /** Angle between a and b. */
  gamma: number;
  /** Absolute volume in Å³. */
  volume: number;
}

export function cellParameters(cell: Cell): CellParameters {
  const [a, b, c] = cell;
  return {
    a: norm(a),
    b: norm(b),
    c: norm(c),
    alpha: angleDeg(b, c),
    beta: angleDeg(a, c),
    gamma: angleDeg(a, b),
    volume: Math.abs(dot(a, cross(b, c))),
  };
}

/** The lattice vectors from lengths and angles, in the crystallographers' convention (a along x, b in xy). */
export function cellFromParameters(
  a: number,
  b: number,
  c: number,
  alpha: number,
  beta: number,
  gamma: number,
): Cell {
  const [ca, cb, cg] = [alpha, beta, gamma].map((d) => Math.cos(d / RAD)) as Vec3;
  const sg = Math.sin(gamma / RAD);
  const cx = c * cb;
  const cy = (c * (ca - cb * cg)) / sg;
  const cz = Math.sqrt(Math.max(0, c * c - cx * cx - cy * cy));
  return [
    [a, 0, 0],
    [b * cg, b * sg, 0],
    [cx, cy, cz],
  ];
}

/** Cartesian position of fractional coordinates f in the cell. */
export function toCartesian(cell: Cell, f: Vec3): Vec3 {
  const [a, b, c] = cell;
  return [
    f[0] * a[0] + f[1] * b[0] + f[2] * c[0],
    f[0] * a[1] + f[1] * b[1] + f[2] * c[1],
    f[0] * a[2] + f[1] * b[2] + f[2] * c[2],
  ];
}

/** Fractional coordinates of a Cartesian position; undefined for a singular cell (e.g. a molecule's zero cell). */
export function toFractional(cell: Cell, r: Vec3): Vec3 | undefined {
  const [a, b, c] = cell;
  const volume = dot(a, cross(b, c));
  if (Math.abs(volume) < 1e-12) return undefined;
  // Rows of the inverse are the reciprocal vectors over the volume.
  return [dot(cross(b, c), r) / volume, dot(cross(c, a), r) / volume, dot(cross(a, b), r) / volume];
}

/** The 12 edges of the cell's parallelepiped from the origin, as pairs of Cartesian points. */
export function cellEdges(cell: Cell): Array<[Vec3, Vec3]> {
  const corner = (i: number, j: number, k: number) => toCartesian(cell, [i, j, k]);
  const edges: Array<[Vec3, Vec3]> = [];
  for (const i of [0, 1])
    for (const j of [0, 1]) {
      edges.push([corner(0, i, j), corner(1, i, j)]);
      edges.push([corner(i, 0, j), corner(i, 1, j)]);
      edges.push([corner(i, j, 0), corner(i, j, 1)]);
    }
  return edges;
}

export function isVec3(value: unknown): value is Vec3 {
  return Array.isArray(value) && value.length === 3 && value.every((x) => typeof x === 'number');
}

export function isCell(value: unknown): value is Cell {
  return Array.isArray(value) && value.length === 3 && value.every(isVec3);
}
