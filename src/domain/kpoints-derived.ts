/**
 * Derived properties of KpointsData, as aiida's REST translator computes them: the explicit k-points in
 * crystal and (with a cell) cartesian coordinates, the Brillouin zone, labelled points and path, the mesh.
 */
import { brillouinZone } from './brillouin-zone.js';
import type { NpyArray } from './formats/npy.js';
import { isCell } from './structure.js';

type Vec = [number, number, number];

/** A KpointsData whose attributes AiiDA could not have stored: a 400 wherever it reaches an answer. */
export class KpointsShapeError extends Error {
  override name = 'KpointsShapeError';
  readonly status = 400;
  constructor(what: string) {
    super(`this KpointsData's attributes are not k-points AiiDA stores: ${what}`);
  }
}

/** 2π inv(cell)ᵀ: the reciprocal vectors as rows. */
export function reciprocalCell(cell: number[][]): Vec[] {
  const [a, b, c] = cell as [Vec, Vec, Vec];
  const cross = (u: Vec, v: Vec): Vec => [
    u[1] * v[2] - u[2] * v[1],
    u[2] * v[0] - u[0] * v[2],
    u[0] * v[1] - u[1] * v[0],
  ];
  const bc = cross(b, c);
  const volume = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
  return [bc, cross(c, a), cross(a, b)].map((v) => v.map((x) => (2 * Math.PI * x) / volume) as Vec);
}

/** The k-points of a mesh in crystal coordinates, in numpy.mgrid's order. */
function meshPoints(mesh: number[], offset: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < (mesh[0] ?? 0); i++)
    for (let j = 0; j < (mesh[1] ?? 0); j++)
      for (let k = 0; k < (mesh[2] ?? 0); k++) {
        out.push([i, j, k].map((n, axis) => (n + (offset[axis] ?? 0)) / (mesh[axis] ?? 1)));
      }
  return out;
}

export function kpointsDerived(
  attributes: Record<string, unknown>,
  kpoints?: NpyArray,
): Record<string, unknown> {
  if (attributes.cell !== undefined && attributes.cell !== null && !isCell(attributes.cell))
    throw new KpointsShapeError('`cell` is not three vectors of three numbers');
  const cell = isCell(attributes.cell) ? reciprocalCell(attributes.cell) : undefined;
  const mesh = attributes.mesh as number[] | undefined;
  const offset = attributes.offset as number[] | undefined;
  let rel: number[][] | undefined;
  if (kpoints) {
    rel = [];
    for (let i = 0; i < kpoints.data.length; i += 3) rel.push(kpoints.data.slice(i, i + 3));
  }
  if (Array.isArray(mesh) && Array.isArray(offset)) rel = meshPoints(mesh, offset);
  const out: Record<string, unknown> = {};
  if (rel) out.explicit_kpoints_rel = rel;
  let abs: number[][] | undefined;
  if (cell) {
    out.faces_data = brillouinZone(...(cell as [Vec, Vec, Vec]));
    if (rel) {
      abs = rel.map((k) =>
        [0, 1, 2].map((j) => k[0]! * cell[0]![j]! + k[1]! * cell[1]![j]! + k[2]! * cell[2]![j]!),
      );
      out.explicit_kpoints_abs = abs;
    }
  }
  const names = attributes.labels;
  const numbers = attributes.label_numbers;
  const hasLabels = kpoints !== undefined && Array.isArray(names) && Array.isArray(numbers);
  if (hasLabels && rel) {
    const labelled: Record<string, unknown> = {};
    const labelledAbs: Record<string, unknown> = {};
    const path: string[][] = [];
    let previous: string | undefined;
    (numbers as number[]).forEach((idx, i) => {
      const label = String((names as unknown[])[i]);
      labelled[label] = rel![idx];
      if (abs) labelledAbs[label] = abs[idx];
      if (idx > 0) path.push([previous as string, label]);
      previous = label;
    });
    out.labelled_kpoints_rel = labelled;
    out.labelled_path = path;
    if (abs) out.labelled_kpoints_abs = labelledAbs;
  }
  if (Array.isArray(mesh) && Array.isArray(offset)) Object.assign(out, { mesh, offset });
  return {
    ...out,
    has_cell: cell !== undefined,
    has_mesh: Array.isArray(mesh) && Array.isArray(offset),
    has_labels: hasLabels,
  };
}
