/**
 * A structure as VASP's POSCAR, written in the browser from its attributes (the v4 API downloads a structure as
 * CIF, XSF or XYZ, not POSCAR): the cell, the species in the order they first appear, their counts, and the
 * Cartesian positions grouped by species. An alloy's site is written as its main element.
 */
import type { Cell, Vec3 } from './cell.js';

const fixed = (x: number) => x.toFixed(10).padStart(16);
const row = (v: Vec3) => v.map(fixed).join(' ');

export function poscar(title: string, cell: Cell, atoms: { symbol: string; position: Vec3 }[]): string {
  const species = [...new Set(atoms.map((a) => a.symbol))];
  const lines = [
    title.replace(/\s+/g, ' ').trim() || 'structure',
    '1.0',
    ...cell.map(row),
    species.join(' '),
    species.map((s) => atoms.filter((a) => a.symbol === s).length).join(' '),
    'Cartesian',
  ];
  for (const s of species) for (const a of atoms) if (a.symbol === s) lines.push(row(a.position));
  return `${lines.join('\n')}\n`;
}

/**
 * The rotation (a quaternion x, y, z, w) that turns `direction` to point into the screen (-z), the view along
 * that cell vector.
 */
export function viewAlong(direction: Vec3): [number, number, number, number] {
  const length = Math.hypot(...direction);
  if (length === 0) return [0, 0, 0, 1];
  const u = direction.map((x) => x / length) as Vec3;
  // From u to (0, 0, -1): the axis u × v, the half angle from 1 + u·v.
  const w = 1 - u[2];
  if (w < 1e-9) return [1, 0, 0, 0];
  const q: [number, number, number, number] = [-u[1], u[0], 0, w];
  const n = Math.hypot(...q);
  return q.map((x) => x / n) as [number, number, number, number];
}
