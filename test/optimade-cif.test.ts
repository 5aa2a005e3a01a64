/**
 * CIF files read into sites (src/optimade/cif-sites.ts): the cell from its lengths and angles, the sites of
 * every symmetry operation kept once, and the files left out because they cannot be read into sites.
 */
import { describe, expect, it } from 'vitest';
import { cifAttributes } from '../src/optimade/cif-sites.js';

const cif = (body: string) => `# a comment
data_test
_chemical_formula_sum 'Na Cl'
_cell_length_a 5.64(1)
_cell_length_b 5.64
_cell_length_c 5.64
_cell_angle_alpha 90
_cell_angle_beta 90
_cell_angle_gamma 90
_publ_section_title
;
 A text field; with _tags_that_are_not_tags and loop_ inside
;
${body}
data_second
_cell_length_a 1
`;

const SITES = `loop_
_atom_site_label
_atom_site_type_symbol
_atom_site_fract_x
_atom_site_fract_y
_atom_site_fract_z
_atom_site_occupancy
Na1 Na+ 0 0 0 1.0
Cl1 Cl- 0.5 0.5 0.5 1.0
`;

describe('CIF files as sites', () => {
  it('reads a P1 file as it is, with its cell in Å', () => {
    const a = cifAttributes(cif(SITES))!;
    expect(a.cell).toEqual([
      [5.64, 0, 0],
      [0, 5.64, 0],
      [0, 0, 5.64],
    ]);
    expect(a.sites).toEqual([
      { kind_name: 'Na', position: [0, 0, 0] },
      { kind_name: 'Cl', position: [2.82, 2.82, 2.82] },
    ]);
    expect(a.kinds).toEqual([
      { name: 'Na', symbols: ['Na'], weights: [1] },
      { name: 'Cl', symbols: ['Cl'], weights: [1] },
    ]);
  });

  it('applies every symmetry operation and keeps each position once (rock salt from its two sites)', () => {
    const ops = [
      'x,y,z',
      'x+1/2,y+1/2,z',
      'x+1/2,y,z+1/2',
      'x,y+1/2,z+1/2',
      '-x,-y,-z',
      "'-x+1/2, -y+1/2, -z'",
    ];
    const a = cifAttributes(cif(`loop_\n_space_group_symop_operation_xyz\n${ops.join('\n')}\n${SITES}`))!;
    const sites = a.sites as { kind_name: string }[];
    expect(sites.filter((s) => s.kind_name === 'Na')).toHaveLength(4);
    expect(sites.filter((s) => s.kind_name === 'Cl')).toHaveLength(4);
  });

  it('places a and b at an angle as ASE does: a along x, b in the xy plane', () => {
    const text = cif(SITES).replace('_cell_angle_gamma 90', '_cell_angle_gamma 120');
    const [a, b, c] = cifAttributes(text)!.cell as number[][];
    expect(a).toEqual([5.64, 0, 0]);
    expect(b![0]).toBeCloseTo(-2.82, 9);
    expect(b![1]).toBeCloseTo((5.64 * Math.sqrt(3)) / 2, 9);
    expect(c![2]).toBeCloseTo(5.64, 9);
  });

  it('leaves out what it cannot read into sites without guessing', () => {
    // A partly occupied site.
    expect(cifAttributes(cif(SITES.replace('0.5 0.5 0.5 1.0', '0.5 0.5 0.5 0.5')))).toBeUndefined();
    // A space group other than P1 with no operations listed.
    expect(cifAttributes(cif(`_space_group_IT_number 225\n${SITES}`))).toBeUndefined();
    expect(cifAttributes(cif(`_space_group_IT_number 1\n${SITES}`))).toBeDefined();
    // An operation that is not one, a symbol outside the periodic table, no cell, no sites.
    expect(cifAttributes(cif(`loop_\n_symmetry_equiv_pos_as_xyz\n'x,y'\n${SITES}`))).toBeUndefined();
    expect(cifAttributes(cif(SITES.replace('Cl1 Cl-', 'Q1 Q')))).toBeUndefined();
    expect(cifAttributes(cif(SITES).replace(/_cell_length_a .*\n/, ''))).toBeUndefined();
    expect(cifAttributes(cif(''))).toBeUndefined();
    expect(cifAttributes('not a CIF at all')).toBeUndefined();
  });
});
