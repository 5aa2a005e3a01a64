/** Brillouin zones of the three cubic lattices, and the derived properties of k-point lists and meshes. */
import { describe, expect, it } from 'vitest';
import { brillouinZone } from '../src/domain/brillouin-zone.js';
import { kpointsDerived, reciprocalCell } from '../src/domain/kpoints-derived.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { npy } from '../src/generate/files.js';
import { zoneDifference } from './conformance/bz-compare.js';

const sides = (zone: ReturnType<typeof brillouinZone>) =>
  zone.faces.map((f) => f.length).sort((a, b) => a - b);

describe('Brillouin zone', () => {
  it('of a simple cubic lattice is a cube of six squares', () => {
    const zone = brillouinZone([1, 0, 0], [0, 1, 0], [0, 0, 1]);
    expect(sides(zone)).toEqual([4, 4, 4, 4, 4, 4]);
    expect(zone.triangles_vertices).toHaveLength(8);
    for (const v of zone.triangles_vertices) for (const x of v) expect(Math.abs(x)).toBeCloseTo(0.5, 12);
    expect(zone.triangles).toHaveLength(12);
  });

  it('of an fcc lattice (bcc reciprocal vectors) is a rhombic dodecahedron', () => {
    const zone = brillouinZone([1, 1, 0], [1, 0, 1], [0, 1, 1]);
    expect(sides(zone)).toEqual(new Array(12).fill(4));
    expect(zone.triangles_vertices).toHaveLength(14);
  });

  it('of a bcc lattice (fcc reciprocal vectors) is a truncated octahedron, with outward triangles', () => {
    const zone = brillouinZone([1, 1, -1], [1, -1, 1], [-1, 1, 1]);
    expect(sides(zone)).toEqual([...new Array(6).fill(4), ...new Array(8).fill(6)]);
    expect(zone.triangles_vertices).toHaveLength(24);
    expect(zoneDifference(zone, zone)).toBeUndefined();
    const flipped = { ...zone, triangles: zone.triangles.map((t) => [...t].reverse()) };
    expect(zoneDifference(zone, flipped)).toMatch(/inwards/);
  });
});

describe('k-points derived properties', () => {
  it('lists the points of a mesh in numpy.mgrid order, shifted by the offset', () => {
    const derived = kpointsDerived({ mesh: [2, 1, 2], offset: [0.5, 0, 0] });
    expect(derived.explicit_kpoints_rel).toEqual([
      [0.25, 0, 0],
      [0.25, 0, 0.5],
      [0.75, 0, 0],
      [0.75, 0, 0.5],
    ]);
    expect(derived).toMatchObject({ has_cell: false, has_mesh: true, has_labels: false, mesh: [2, 1, 2] });
  });

  it('gives cartesian points, the zone, and labelled points with their path for a labelled list', () => {
    const cell = [
      [4, 0, 0],
      [0, 4, 0],
      [0, 0, 4],
    ];
    const kpoints = readNpy(npy([0, 0, 0, 0.5, 0, 0, 0.5, 0.5, 0], [3, 3]));
    const derived = kpointsDerived({ cell, labels: ['G', 'X', 'M'], label_numbers: [0, 1, 2] }, kpoints);
    const b = reciprocalCell(cell)[0]![0]!;
    expect(b).toBeCloseTo(Math.PI / 2, 14);
    expect(derived.explicit_kpoints_abs).toEqual([
      [0, 0, 0],
      [b / 2, 0, 0],
      [b / 2, b / 2, 0],
    ]);
    expect(derived.labelled_path).toEqual([
      ['G', 'X'],
      ['X', 'M'],
    ]);
    expect(derived.labelled_kpoints_rel).toEqual({ G: [0, 0, 0], X: [0.5, 0, 0], M: [0.5, 0.5, 0] });
    expect(sides(derived.faces_data as ReturnType<typeof brillouinZone>)).toEqual([4, 4, 4, 4, 4, 4]);
  });
});
