/**
 * What a structure's page works out about its crystal: the cell a symmetry finder is given (kinds as species, so
 * that kinds the data tells apart, Fe1 and Fe2, stay apart), the density from the kinds' masses, and a supercell.
 */
import { cellParameters, cross, norm, type Cell, type Vec3 } from './cell.js';
import { siteComposition, type Crystal } from './structure.js';

/** Whether kinds tell apart atoms of the same composition, so that the kinds' symmetry may be lower. */
export function kindsSplitElements(crystal: Crystal): boolean {
  const kindOf = new Map<string, string>();
  for (const s of crystal.sites) {
    const composition = siteComposition(s);
    if ((kindOf.get(composition) ?? s.kind) !== s.kind) return true;
    kindOf.set(composition, s.kind);
  }
  return false;
}

/** The cell as moyo reads it: lattice vectors as rows (flattened), fractional positions, one number a species. */
export interface SymmetryCell {
  lattice: { basis: [number, number, number, number, number, number, number, number, number] };
  positions: Vec3[];
  numbers: number[];
}

/**
 * The cell with kinds as species, or with elements as species (`by: 'element'`): what a file without kinds, a
 * CIF, says. The two differ only where kinds tell atoms of one element apart (Fe1 and Fe2 of an antiferromagnet).
 */
export function symmetryCell(crystal: Crystal, by: 'kind' | 'element' = 'kind'): SymmetryCell {
  const species = new Map<string, number>();
  const numbers = crystal.sites.map((s) => {
    const name = by === 'kind' ? s.kind : siteComposition(s);
    if (!species.has(name)) species.set(name, species.size + 1);
    return species.get(name)!;
  });
  const [a, b, c] = crystal.cell;
  return {
    lattice: { basis: [...a, ...b, ...c] as SymmetryCell['lattice']['basis'] },
    positions: crystal.sites.map((s) => s.fractional ?? [0, 0, 0]),
    numbers,
  };
}

/** Grams per atomic mass unit, times 1e24 Å³ per cm³. */
const AMU_G_PER_CM3 = 1.6605390666;

/** Density in g/cm³ from the kinds' masses (AiiDA stores each kind's mass), or undefined without them. */
export function density(attributes: Record<string, unknown>, cell: Cell): number | undefined {
  const total = sitesMass(attributes);
  const volume = cellParameters(cell).volume;
  return total !== undefined && volume > 0 ? (total * AMU_G_PER_CM3) / volume : undefined;
}

/** The mass of the cell's sites in amu, from the kinds' masses. */
function sitesMass(attributes: Record<string, unknown>): number | undefined {
  const { kinds, sites } = attributes;
  if (!Array.isArray(kinds) || !Array.isArray(sites)) return undefined;
  const mass = new Map<string, number>();
  for (const k of kinds as { name?: unknown; mass?: unknown }[]) {
    if (typeof k?.name === 'string' && typeof k.mass === 'number') mass.set(k.name, k.mass);
  }
  let total = 0;
  for (const s of sites as { kind_name?: unknown }[]) {
    const m = mass.get(String(s?.kind_name));
    if (m === undefined) return undefined;
    total += m;
  }
  return total;
}

/** mg/m² per amu/Å²: 1.66054e-27 kg over 1e-20 m². */
const AMU_PER_A2_MG_PER_M2 = 0.16605390666;

export interface Density {
  value: number;
  /** `g/cm³` for a bulk crystal, `mg/m²` (mass per area of the periodic plane) for a sheet or a slab. */
  unit: 'g/cm³' | 'mg/m²';
}

/**
 * The density a structure's periodic directions make sense of: a bulk crystal's mass per volume; a 2D cell's (a
 * sheet or a slab, two periodic directions) mass per area of its periodic plane, which the vacuum along the third
 * does not change; none for a molecule or a chain (0D, 1D), whose cell is mostly vacuum.
 */
export function densityOf(
  attributes: Record<string, unknown>,
  cell: Cell,
  pbc: [boolean, boolean, boolean],
): Density | undefined {
  const periodic = pbc.filter(Boolean).length;
  if (periodic === 3) {
    const value = density(attributes, cell);
    return value === undefined ? undefined : { value, unit: 'g/cm³' };
  }
  if (periodic !== 2) return undefined;
  const total = sitesMass(attributes);
  const [u, v] = cell.filter((_, i) => pbc[i]) as [Vec3, Vec3];
  const area = norm(cross(u, v));
  return total === undefined || area <= 0
    ? undefined
    : { value: (total * AMU_PER_A2_MG_PER_M2) / area, unit: 'mg/m²' };
}

/** The atoms of an n1×n2×n3 supercell and its cell. */
export function supercell<T extends { position: Vec3 }>(
  atoms: T[],
  cell: Cell,
  repeat: [number, number, number],
): { atoms: T[]; cell: Cell } {
  const out: T[] = [];
  for (let i = 0; i < repeat[0]; i++)
    for (let j = 0; j < repeat[1]; j++)
      for (let k = 0; k < repeat[2]; k++) {
        const shift = [0, 1, 2].map((d) => i * cell[0][d]! + j * cell[1][d]! + k * cell[2][d]!);
        for (const atom of atoms)
          out.push({ ...atom, position: atom.position.map((x, d) => x + shift[d]!) as Vec3 });
      }
  const scaled = cell.map((v, n) => v.map((x) => x * repeat[n]!)) as unknown as Cell;
  return { atoms: out, cell: scaled };
}
