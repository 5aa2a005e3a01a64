/**
 * CIF of a structure, as aiida writes it through ASE (`cif_from_ase`): cell lengths and angles, P 1 symmetry
 * for fully periodic cells, one site per atom labelled `<symbol><n>` with fractional coordinates wrapped into
 * [0, 1) along periodic directions. The values are those aiida computes; the layout is plain CIF (aiida's is
 * PyCifRW's column packing), so files are equal in content, not byte for byte (docs/compatibility.md).
 */
import { completeCell } from '../cell.js';
import type { Structure } from '../structure.js';
import { pyFloat } from './python-text.js';

type Vec = [number, number, number];

const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a: Vec) => Math.sqrt(dot(a, a));

/** The coordinates of `p` in the basis of the cell's rows (what numpy.linalg.solve(cell.T, p) gives). */
function fractional(cell: [Vec, Vec, Vec], p: Vec): Vec {
  const [a, b, c] = cell;
  const cross = (u: Vec, v: Vec): Vec => [
    u[1] * v[2] - u[2] * v[1],
    u[2] * v[0] - u[0] * v[2],
    u[0] * v[1] - u[1] * v[0],
  ];
  const volume = dot(a, cross(b, c));
  return [dot(p, cross(b, c)) / volume, dot(p, cross(c, a)) / volume, dot(p, cross(a, b)) / volume];
}

/** Python's float modulo by 1, applied twice as ASE does (so that -1e-17 ends at 0.0, not 1.0). */
function wrap(x: number): number {
  const once = x - Math.floor(x);
  return once - Math.floor(once);
}

const quoted = (v: string) => (/[\s']/.test(v) ? `'${v}'` : v);

/** One CIF data block `data_<name>`, from the symbols and cartesian positions of its atoms. */
export function cifBlock(name: string, structure: Structure, symbolOf: (kindName: string) => string): string {
  const cell = structure.cell as [Vec, Vec, Vec];
  const [a, b, c] = [norm(cell[0]), norm(cell[1]), norm(cell[2])];
  // Between a missing (zero) vector and another, 90 degrees, as ASE's cell_to_cellpar says; aiida's own
  // arccos gives nan there (docs/compatibility.md).
  const angle = (u: Vec, v: Vec, lu: number, lv: number) =>
    lu * lv > 1e-16 ? (Math.acos(dot(u, v) / (lu * lv)) * 180) / Math.PI : 90.0;
  const items: [string, string][] = [
    ['_cell_angle_alpha', pyFloat(angle(cell[1], cell[2], b, c))],
    ['_cell_angle_beta', pyFloat(angle(cell[0], cell[2], a, c))],
    ['_cell_angle_gamma', pyFloat(angle(cell[0], cell[1], a, b))],
    ['_cell_length_a', pyFloat(a)],
    ['_cell_length_b', pyFloat(b)],
    ['_cell_length_c', pyFloat(c)],
  ];
  const periodic = structure.pbc.every(Boolean);
  const basis = completeCell(cell) as [Vec, Vec, Vec];
  const counts = new Map<string, number>();
  const rows = structure.sites.map((site) => {
    const symbol = symbolOf(site.kind_name);
    counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    const f = fractional(basis, site.position as Vec).map((x, i) => (structure.pbc[i] ? wrap(x) : x));
    return [`${symbol}${counts.get(symbol)}`, ...f.map(pyFloat), symbol];
  });
  const lines = [`data_${name}`, ''];
  if (rows.length > 0) {
    lines.push('loop_');
    for (const tag of ['label', 'fract_x', 'fract_y', 'fract_z', 'type_symbol'])
      lines.push(`  _atom_site_${tag}`);
    for (const row of rows) lines.push(`  ${row.join('  ')}`);
  }
  for (const [tag, value] of items) lines.push(`${tag.padEnd(40)}${value}`);
  if (periodic) {
    lines.push('loop_', '  _symmetry_equiv_pos_as_xyz', `  ${quoted('x, y, z')}`);
    lines.push(`${'_symmetry_int_tables_number'.padEnd(40)}1`);
    lines.push(`${'_symmetry_space_group_name_H-M'.padEnd(40)}${quoted('P 1')}`);
  }
  return `${lines.join('\n')}\n`;
}
