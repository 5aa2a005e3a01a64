/**
 * The CIF and trajectory XSF exporters on small fixed inputs; expected values are those of the reference's
 * recorded answers (download-struct0-cif, download-traj0-xsf of rich.aiida).
 */
import { describe, expect, it } from 'vitest';
import { cifBlock } from '../src/domain/formats/cif-writer.js';
import { npy } from '../src/generate/files.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { toXsf } from '../src/domain/formats/structure-formats.js';
import { trajectoryCif, trajectoryXsf } from '../src/domain/formats/trajectory-formats.js';
import type { Structure } from '../src/domain/structure.js';
import { cifDifference, parseCif } from './conformance/cif-compare.js';

const gallium: Structure = {
  cell: [
    [4.18262, 0, 0],
    [0, 4.61425, 0],
    [0, 0, 6.03001],
  ],
  pbc: [true, true, true],
  kinds: ['Ga', 'N', 'Se'].map((s) => ({ name: s, symbols: [s], weights: [1] })),
  sites: [
    { kind_name: 'Ga', position: [2.1507868564, 3.9570423725, 2.790688628] },
    { kind_name: 'N', position: [1.6106851358, 2.95108973, 1.6067564646] },
    { kind_name: 'Se', position: [0.5846047974, 2.20505779, 2.5138508689] },
  ],
};

/** The reference's CIF of that structure (PyCifRW's layout). */
const REFERENCE_CIF = `data_0
loop_
  _atom_site_label
  _atom_site_fract_x
  _atom_site_fract_y
  _atom_site_fract_z
  _atom_site_type_symbol
         Ga1       0.5142199999999999  0.8575699999999999  0.46279999999999993           Ga
         N1        0.38509   0.63956   0.26646000000000003           N
         Se1       0.13977   0.47787999999999997           0.41689   Se
_cell_angle_alpha                       90.0
_cell_angle_beta                        90.0
_cell_angle_gamma                       90.0
_cell_length_a                          4.18262
_cell_length_b                          4.61425
_cell_length_c                          6.03001
loop_
  _symmetry_equiv_pos_as_xyz
         'x, y, z'
_symmetry_int_tables_number             1
_symmetry_space_group_name_H-M          'P 1'
`;

describe('CIF of a structure', () => {
  it('has the cell, the labelled sites in fractional coordinates and P 1 symmetry of the reference', () => {
    const cif = cifBlock('0', gallium, (k) => k);
    expect(cifDifference(REFERENCE_CIF, cif)).toBeUndefined();
    const [block] = parseCif(cif);
    expect(block?.items.get('_atom_site_label')).toEqual(['Ga1', 'N1', 'Se1']);
    expect(block?.items.get('_symmetry_space_group_name_H-M')).toEqual(['P 1']);
  });

  it('leaves out symmetry for cells that are not periodic in every direction, and wraps periodic ones', () => {
    const slab = { ...gallium, pbc: [true, true, false] as [boolean, boolean, boolean] };
    slab.sites = [{ kind_name: 'Ga', position: [-0.418262, 0, 7.0] }];
    const [block] = parseCif(cifBlock('0', slab, (k) => k));
    expect(block?.items.has('_symmetry_space_group_name_H-M')).toBe(false);
    expect(Number(block?.items.get('_atom_site_fract_x')?.[0])).toBeCloseTo(0.9, 12);
    expect(Number(block?.items.get('_atom_site_fract_z')?.[0])).toBeCloseTo(7.0 / 6.03001, 12);
  });

  it('names two atoms of one element Ga1 and Ga2, and a mismatch is found by the comparison', () => {
    const two = { ...gallium, sites: [gallium.sites[0]!, { kind_name: 'Ga', position: [0, 0, 0] }] };
    const cif = cifBlock('0', two, (k) => k);
    expect(parseCif(cif)[0]?.items.get('_atom_site_label')).toEqual(['Ga1', 'Ga2']);
    expect(cifDifference(REFERENCE_CIF, cif)).toMatch(/_atom_site/);
  });
});

describe('trajectory exports', () => {
  const cell = [3.18, 0, 0, -1.59, 2.753960784034588, 0, 0, 0, 19.19];
  const positions = [0, 0, 9.595, 1.59, 0.917986928, 11.19, 1.59, 0.917986928, 8.0];
  const trajectory = {
    symbols: ['Mo', 'S', 'S'],
    cells: readNpy(npy([...cell, ...cell], [2, 3, 3])),
    positions: readNpy(npy([...positions, ...positions], [2, 3, 3])),
    pbc: [true, true, true] as [boolean, boolean, boolean],
  };

  it('writes an XSF animation as the reference does', () => {
    const step = (n: number) =>
      `PRIMVEC ${n}\n` +
      '           3.18000            0.00000            0.00000\n' +
      '          -1.59000            2.75396            0.00000\n' +
      '           0.00000            0.00000           19.19000\n' +
      `PRIMCOORD ${n}\n3 1\n` +
      '42       0.0000000000       0.0000000000       9.5950000000\n' +
      '16       1.5900000000       0.9179869280      11.1900000000\n' +
      '16       1.5900000000       0.9179869280       8.0000000000\n';
    expect(trajectoryXsf(trajectory)).toBe(`ANIMSTEPS 2\nCRYSTAL\n${step(1)}${step(2)}`);
  });

  it('writes one CIF block per step, with the cell of the hexagonal step', () => {
    const blocks = parseCif(trajectoryCif(trajectory));
    expect(blocks).toHaveLength(2);
    expect(Number(blocks[0]?.items.get('_cell_angle_gamma')?.[0])).toBeCloseTo(120, 10);
    expect(blocks[1]?.items.get('_atom_site_label')).toEqual(['Mo1', 'S1', 'S2']);
  });
});

describe('XSF of a structure with empty spheres (KKR)', () => {
  it('gives the dummy element X atomic number 0, as aiida does', () => {
    const withSpheres: Structure = {
      ...gallium,
      kinds: [
        { name: 'Bi', symbols: ['Bi'], weights: [1] },
        { name: 'X', symbols: ['X'], weights: [1] },
      ],
      sites: [
        { kind_name: 'Bi', position: [0, 0, 0] },
        { kind_name: 'X', position: [1.5, 1.5, 1.5] },
      ],
    };
    const xsf = toXsf(withSpheres);
    expect(xsf).toContain('PRIMCOORD 1\n2 1\n83 ');
    expect(xsf).toMatch(/\n0 +1\.5000000000 +1\.5000000000 +1\.5000000000\n$/);
    const cells = npy([4, 0, 0, 0, 4, 0, 0, 0, 4], [1, 3, 3]);
    const positions = npy([0, 0, 0, 2, 2, 2], [1, 2, 3]);
    const trajectory = trajectoryXsf({
      symbols: ['Bi', 'X'],
      cells: readNpy(cells),
      positions: readNpy(positions),
      pbc: [true, true, true],
    });
    expect(trajectory).toMatch(/\n0 +2\.0000000000 +2\.0000000000 +2\.0000000000\n$/);
    expect(() =>
      toXsf({ ...withSpheres, kinds: [withSpheres.kinds[0]!, { name: 'X', symbols: ['Q'], weights: [1] }] }),
    ).toThrow(/XSF needs chemical elements; "Q"/);
  });
});
