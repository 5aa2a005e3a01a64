/**
 * Which drawn atoms are bonded: two atoms closer than the sum of their covalent radii times a tolerance. Pure; the
 * radii come from the caller (the 3D view passes 3Dmol's table), so the rule is checked without a browser.
 */
import type { Vec3 } from './cell.js';

/** How far past the sum of covalent radii two atoms still count as bonded (15%, as common viewers allow). */
export const BOND_TOLERANCE = 1.15;

/** Atoms closer than this (Å) are the same site drawn twice, or a defect of the data, never a bond. */
const TOO_CLOSE = 0.4;

/**
 * The bonded pairs [i, j] (i < j) among the atoms. A grid of cells as wide as the longest possible bond keeps it
 * linear in the number of atoms: a supercell of thousands of atoms is bonded in milliseconds.
 */
export function bondPairs(
  atoms: { symbol: string; position: Vec3 }[],
  radius: (symbol: string) => number,
  tolerance = BOND_TOLERANCE,
): [number, number][] {
  const radii = atoms.map((a) => radius(a.symbol));
  const reach = 2 * Math.max(0, ...radii) * tolerance;
  if (atoms.length < 2 || !(reach > 0)) return [];
  const grid = new Map<string, number[]>();
  const key = (p: Vec3) => p.map((x) => Math.floor(x / reach)).join(',');
  atoms.forEach((a, i) => {
    const k = key(a.position);
    const bucket = grid.get(k);
    if (bucket) bucket.push(i);
    else grid.set(k, [i]);
  });
  const pairs: [number, number][] = [];
  atoms.forEach((a, i) => {
    const [cx, cy, cz] = a.position.map((x) => Math.floor(x / reach)) as Vec3;
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) {
          for (const j of grid.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? []) {
            if (j <= i) continue;
            const b = atoms[j]!;
            const d = Math.hypot(
              a.position[0] - b.position[0],
              a.position[1] - b.position[1],
              a.position[2] - b.position[2],
            );
            if (d >= TOO_CLOSE && d <= (radii[i]! + radii[j]!) * tolerance) pairs.push([i, j]);
          }
        }
  });
  return pairs;
}
