/** Contents of the repository files the generator writes: numpy arrays, CIF, UPF, calcjob inputs and outputs. */

/** A numpy .npy file (format 1.0) of little-endian float64 or int64 values. */
export function npy(values: number[], shape: number[], dtype: '<f8' | '<i8' = '<f8'): Buffer {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${dtype}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = Buffer.alloc(values.length * 8);
  values.forEach((v, i) =>
    dtype === '<f8' ? data.writeDoubleLE(v, i * 8) : data.writeBigInt64LE(BigInt(Math.round(v)), i * 8),
  );
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), data]);
}

export interface Site {
  symbol: string;
  position: [number, number, number];
}

export function cifFile(name: string, cell: number[][], sites: Site[], spacegroup: number): string {
  const len = (v: number[]) => Math.hypot(...v);
  const [a, b, c] = cell.map(len) as [number, number, number];
  const angle = (u: number[], v: number[]) =>
    (Math.acos((u[0]! * v[0]! + u[1]! * v[1]! + u[2]! * v[2]!) / (len(u) * len(v))) * 180) / Math.PI;
  const lines = [
    `data_${name}`,
    `_cell_length_a ${a.toFixed(5)}`,
    `_cell_length_b ${b.toFixed(5)}`,
    `_cell_length_c ${c.toFixed(5)}`,
    `_cell_angle_alpha ${angle(cell[1]!, cell[2]!).toFixed(5)}`,
    `_cell_angle_beta ${angle(cell[0]!, cell[2]!).toFixed(5)}`,
    `_cell_angle_gamma ${angle(cell[0]!, cell[1]!).toFixed(5)}`,
    `_symmetry_Int_Tables_number ${spacegroup}`,
    "_symmetry_space_group_name_H-M 'P 1'",
    'loop_',
    '_symmetry_equiv_pos_as_xyz',
    "  'x, y, z'",
    'loop_',
    '_atom_site_label',
    '_atom_site_type_symbol',
    '_atom_site_fract_x',
    '_atom_site_fract_y',
    '_atom_site_fract_z',
    ...sites.map(
      (s, i) =>
        `  ${s.symbol}${i + 1} ${s.symbol} ${fractional(cell, s.position)
          .map((x) => x.toFixed(6))
          .join(' ')}`,
    ),
    '',
  ];
  return lines.join('\n');
}

/**
 * A Cartesian position (Å) in fractions of the cell's vectors (its rows), as a CIF lists sites: r = f·cell, so
 * f = r·cell⁻¹ (the adjugate over the determinant). The catalog's positions are Cartesian.
 */
function fractional(cell: number[][], r: number[]): number[] {
  type Row = [number, number, number];
  const [[a, b, c], [d, e, f], [g, h, i]] = cell as [Row, Row, Row];
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  const inverse = [
    [e * i - f * h, c * h - b * i, b * f - c * e],
    [f * g - d * i, a * i - c * g, c * d - a * f],
    [d * h - e * g, b * g - a * h, a * e - b * d],
  ];
  const [x, y, z] = r as [number, number, number];
  // In [0, 1), as CIF files usually list them (-0.5 becomes 0.5; the + 0 turns -0 into 0).
  return [0, 1, 2].map((k) => {
    const v = (x * inverse[0]![k]! + y * inverse[1]![k]! + z * inverse[2]![k]!) / det;
    return v - Math.floor(v + 1e-9) + 0;
  });
}

/** A small but complete UPF v2 ultrasoft pseudopotential: mesh, local part, one projector and its Q_ij. */
export function upfFile(element: string, functional: string): string {
  const mesh = [0.0, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64];
  const values = (f: (r: number) => number) => mesh.map((r) => f(r).toExponential(8)).join(' ');
  return [
    '<UPF version="2.0.1">',
    '  <PP_INFO>',
    `    Generated for ${element} (${functional}) by the Quarry demo generator`,
    '  </PP_INFO>',
    `  <PP_HEADER generated="quarry" author="quarry" element="${element}" pseudo_type="USPP" relativistic="scalar"`,
    `             is_ultrasoft="T" is_paw="F" has_so="F" core_correction="F" functional="${functional}"`,
    '             z_valence="4.0" mesh_size="8" l_max="0" number_of_wfc="1" number_of_proj="1"/>',
    '  <PP_MESH>',
    `    <PP_R type="real" size="8">${values((r) => r)}</PP_R>`,
    '  </PP_MESH>',
    `  <PP_LOCAL type="real" size="8">${values((r) => -8 / (1 + r))}</PP_LOCAL>`,
    '  <PP_NONLOCAL>',
    `    <PP_BETA.1 type="real" size="8" angular_momentum="0" cutoff_radius_index="6" label="3S">${values((r) => r * Math.exp(-r))}</PP_BETA.1>`,
    '    <PP_DIJ type="real" size="1">1.0</PP_DIJ>',
    '    <PP_AUGMENTATION q_with_l="T" nqf="0" nqlc="1">',
    `      <PP_QIJL.1.1.0 type="real" size="8" first_index="1" second_index="1" composite_index="1" angular_momentum="0">${values((r) => r * r * Math.exp(-2 * r))}</PP_QIJL.1.1.0>`,
    '    </PP_AUGMENTATION>',
    '  </PP_NONLOCAL>',
    '  <PP_PSWFC>',
    `    <PP_CHI.1 type="real" size="8" label="3S" l="0" occupation="2.0">${values((r) => r * Math.exp(-r))}</PP_CHI.1>`,
    '  </PP_PSWFC>',
    `  <PP_RHOATOM type="real" size="8">${values((r) => 4 * r * r * Math.exp(-2 * r))}</PP_RHOATOM>`,
    '</UPF>',
    '',
  ].join('\n');
}

export function pwInput(parameters: Record<string, unknown>, symbols: string[], kmesh: number[]): string {
  return [
    '&CONTROL',
    `  calculation = '${String(parameters.calculation ?? 'scf')}'`,
    "  outdir = './out/'",
    "  prefix = 'aiida'",
    "  pseudo_dir = './pseudo/'",
    '/',
    '&SYSTEM',
    `  ecutwfc = ${String(parameters.ecutwfc)}`,
    `  ecutrho = ${String(parameters.ecutrho)}`,
    `  nat = ${symbols.length}`,
    `  ntyp = ${new Set(symbols).size}`,
    '/',
    '&ELECTRONS',
    `  conv_thr = ${String(parameters.conv_thr)}`,
    '/',
    `K_POINTS automatic`,
    `${kmesh.join(' ')} 0 0 0`,
    '',
  ].join('\n');
}

export function submitScript(jobName: string, mpirun: string, code: string): string {
  return [
    '#!/bin/bash',
    `#SBATCH --job-name="${jobName}"`,
    '#SBATCH --nodes=1',
    '#SBATCH --time=12:00:00',
    '',
    `'${mpirun}' '-np' '4' '${code}' '-in' 'aiida.in'  > 'aiida.out'`,
    '',
  ].join('\n');
}

export function pwOutput(energy: number, iterations: number): string {
  const lines = ['     Program PWSCF v.7.2 starts on  4Mar2019 at 10:31:13', ''];
  for (let i = 1; i <= iterations; i++)
    lines.push(`     iteration #${String(i).padStart(3)}     ecut=    30.00 Ry     beta= 0.70`);
  lines.push('', `!    total energy              =    ${energy.toFixed(8)} Ry`, '', '     JOB DONE.', '');
  return lines.join('\n');
}

export function functionSource(name: string): string {
  return [
    'from aiida.engine import calcfunction',
    '',
    '',
    '@calcfunction',
    `def ${name}(x, y):`,
    `    """The ${name} of two numbers."""`,
    `    return x ${name === 'add' ? '+' : '*'} y`,
    '',
  ].join('\n');
}
