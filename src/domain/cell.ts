/**
 * Cells with missing vectors (molecules, wires, slabs store zero vectors along their non-periodic
 * directions), completed as ASE's `complete_cell` does before it computes fractional coordinates: a missing
 * vector becomes a unit vector orthogonal to the given ones, so that every coordinate is finite.
 */

type Vec = [number, number, number];

const cross = (u: Vec, v: Vec): Vec => [
  u[1] * v[2] - u[2] * v[1],
  u[2] * v[0] - u[0] * v[2],
  u[0] * v[1] - u[1] * v[0],
];
const dot = (u: Vec, v: Vec) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
const scale = (v: Vec, s: number): Vec => [v[0] * s, v[1] * s, v[2] * s];
const det = (c: Vec[]) => dot(c[0] as Vec, cross(c[1] as Vec, c[2] as Vec));

/**
 * The cell with its zero rows replaced. One missing: the normalised cross product of the other two (in
 * ASE's order). Three missing: the unit cell. Two missing: ASE completes through numpy's SVD, whose choice
 * of the two orthonormal vectors this reproduces in closed form (the Householder and Givens steps of
 * LAPACK for a rank-one matrix), then flips one to make the cell right-handed as ASE does. For a given
 * vector in the third row with three non-zero components, LAPACK may settle on another orthonormal pair;
 * coordinates along the given vector are the same either way (docs/compatibility.md).
 */
export function completeCell(cell: number[][]): Vec[] {
  const out = [0, 1, 2].map((i) => [0, 1, 2].map((j) => Number(cell[i]?.[j] ?? 0)) as Vec);
  const missing = [0, 1, 2].filter((i) => out[i]!.every((x) => x === 0));
  if (missing.length === 3)
    return [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
  if (missing.length === 1) {
    const i = missing[0]!;
    const v = cross(out[(i + 1) % 3]!, out[(i + 2) % 3]!);
    out[i] = scale(v, 1 / Math.sqrt(dot(v, v)));
  } else if (missing.length === 2) {
    const given = [0, 1, 2].find((i) => !missing.includes(i))!;
    const [first, second] = twoMissing(given, out[given]!);
    out[missing[0]!] = first;
    out[missing[1]!] = second;
    if (det(out) < 0) out[missing[0]!] = scale(out[missing[0]!]!, -1);
  }
  return out;
}

/** The two unit vectors numpy's SVD puts beside `v`, the only vector, given in row `row`. */
function twoMissing(row: number, v: Vec): [Vec, Vec] {
  const [x, y, z] = v;
  const s = x > 0 ? 1 : -1;
  if (y === 0 && z === 0) {
    // Along the first axis.
    if (row === 0)
      return [
        [0, s, 0],
        [0, 0, 1],
      ];
    if (row === 1)
      return [
        [0, -s, 0],
        [0, 0, 1],
      ];
    return [
      [0, -1, 0],
      [0, 0, -s],
    ];
  }
  if (row === 0) {
    // The reflection LAPACK's dlarfg builds to take v onto the first axis; its other two columns.
    const beta = -Math.sign(x || 1) * Math.sqrt(dot(v, v));
    const tau = (beta - x) / beta;
    const u: Vec = [1, y / (x - beta), z / (x - beta)];
    return [
      [-tau * u[1], 1 - tau * u[1] * u[1], -tau * u[1] * u[2]],
      [-tau * u[2], -tau * u[2] * u[1], 1 - tau * u[2] * u[2]],
    ];
  }
  // In the plane orthogonal to v: a, the direction of the first axis' part orthogonal to v, and b = v x a.
  const r = Math.hypot(y, z);
  const n = Math.sqrt(dot(v, v));
  const a: Vec = [(r * r) / (n * r), (-x * y) / (n * r), (-x * z) / (n * r)];
  const b: Vec = [0, -z / r, y / r];
  if (row === 1) {
    const t = y < 0 ? -1 : 1;
    return [scale(a, t), scale(b, t)];
  }
  const t = x !== 0 ? (y !== 0 ? Math.sign(x * y) : -1) : z !== 0 ? Math.sign(z) : Math.sign(y);
  return [scale(a, t), scale(b, -t)];
}
