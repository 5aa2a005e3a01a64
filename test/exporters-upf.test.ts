/**
 * The UPF JSON export on small fixed files of both UPF versions; expected keys, order, units and number
 * types are those of the reference's answers (download-upf0-json: UPF v1; download-upf1-json: UPF v2).
 */
import { describe, expect, it } from 'vitest';
import { UpfFormatError, upfToJson } from '../src/domain/formats/upf-json.js';

const V2 = `<UPF version="2.0.1">
  <PP_HEADER element="Si " pseudo_type="NC" core_correction="F" z_valence="4.0E+000" mesh_size="3"
    is_ultrasoft="F" number_of_wfc="1" number_of_proj="1" has_so="F"/>
  <PP_MESH><PP_R size="3"> 0.0 1.0E-02 2.0E-02 </PP_R></PP_MESH>
  <PP_LOCAL size="3"> -4.0 -3.0 -2.0 </PP_LOCAL>
  <PP_NONLOCAL>
    <PP_BETA.1 angular_momentum="0" cutoff_radius_index="2" label="3S"> 1.0 2.0 3.0 </PP_BETA.1>
    <PP_DIJ size="1"> 5.0 </PP_DIJ>
  </PP_NONLOCAL>
  <PP_PSWFC><PP_CHI.1 l="0" label="3S" occupation="2.0"> 0.5 0.25 0 </PP_CHI.1></PP_PSWFC>
  <PP_RHOATOM size="3"> 0.0 1.0 2.0 </PP_RHOATOM>
</UPF>
`;

const V1 = `<PP_INFO>
</PP_INFO>
<PP_HEADER>
   0                   Version Number
  Si                   Element
   NC                  Norm - Conserving pseudopotential
    F                  Nonlinear Core Correction
 SLA  PW   PBE  PBE     PBE  Exchange-Correlation functional
    4.00000000000      Z valence
    0.00000000000      Total energy
    0.0000000    0.0000000 Suggested cutoff for wfc and rho
    0                  Max angular momentum component
    3                  Number of points in mesh
    1    1             Number of Wavefunctions, Number of Projectors
</PP_HEADER>
<PP_MESH>
  <PP_R>
  0.00000000000E+00  1.00000000000E-02
  2.00000000000E-02
  </PP_R>
  <PP_RAB>
  </PP_RAB>
</PP_MESH>
<PP_LOCAL>
 -4.0 -3.0 -2.0
</PP_LOCAL>
<PP_NONLOCAL>
  <PP_BETA>
    1    0             Beta    L
     2
  1.0 2.0
  </PP_BETA>
  <PP_DIJ>
    1                  Number of nonzero Dij
    1    1  5.0
  </PP_DIJ>
</PP_NONLOCAL>
<PP_PSWFC>
3S    0  2.00          Wavefunction
  0.5 0.25 0.0
</PP_PSWFC>
<PP_RHOATOM>
  0.0 1.0 2.0
</PP_RHOATOM>
`;

describe('UPF JSON export', () => {
  it('converts UPF v2 as upf_to_json does: Hartree units, cut projectors, labels, Python number types', () => {
    expect(JSON.parse(upfToJson(V2, 'Si.upf'))).toEqual({
      pseudo_potential: {
        header: {
          number_of_proj: 1,
          core_correction: false,
          element: 'Si',
          pseudo_type: 'NC',
          z_valence: 4,
          mesh_size: 3,
          is_ultrasoft: false,
          number_of_wfc: 1,
          spin_orbit: false,
          original_upf_file: 'Si.upf',
        },
        radial_grid: [0, 0.01, 0.02],
        local_potential: [-2, -1.5, -1],
        beta_projectors: [{ radial_function: [1, 2], label: '3S', angular_momentum: 0 }],
        D_ion: [2.5],
        atomic_wave_functions: [
          { radial_function: [0.5, 0.25, 0], angular_momentum: 0, label: '3S', occupation: 2 },
        ],
        total_charge_density: [0, 1, 2],
      },
    });
    // Python's json.dumps: floats keep their point, key order as built, ", " and ": " separators.
    expect(upfToJson(V2, 'Si.upf')).toMatch(/^\{"pseudo_potential": \{"header": \{"number_of_proj": 1, /);
    expect(upfToJson(V2, 'Si.upf')).toContain('"radial_grid": [0.0, 0.01, 0.02]');
  });

  it('converts UPF v1 with its own header order and fixed projector fields', () => {
    const json = JSON.parse(upfToJson(V1, 'Si.UPF')).pseudo_potential;
    expect(Object.keys(json.header)).toEqual([
      'element',
      'pseudo_type',
      'core_correction',
      'z_valence',
      'l_max',
      'mesh_size',
      'number_of_wfc',
      'number_of_proj',
      'original_upf_file',
    ]);
    expect(json.header.core_correction).toBe(0);
    expect(json.beta_projectors).toEqual([
      {
        label: '',
        angular_momentum: 0,
        radial_function: [1, 2],
        cutoff_radius: 0,
        ultrasoft_cutoff_radius: 0,
      },
    ]);
    expect(json.D_ion).toEqual([2.5]);
    expect(json.atomic_wave_functions[0].label).toBe('3S');
    expect(upfToJson(V1, 'Si.UPF')).toContain('"cutoff_radius": 0.0');
  });

  it('answers null for a file of neither version, and a clear error for a broken one', () => {
    expect(upfToJson('just text\n', 'x.upf')).toBe('null');
    expect(() => upfToJson(V1.slice(0, 400), 'x.upf')).toThrow(UpfFormatError);
  });
});
