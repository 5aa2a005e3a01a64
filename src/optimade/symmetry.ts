/**
 * A structure's space group, found on the server once per structure while its side table is built: moyo (the
 * symmetry finder of the spglib authors, as WebAssembly, the library the explorer runs in the browser) at the
 * explorer's default distance tolerance, with the kinds as species (as the explorer's first answer does).
 * No group is given (null) where the question has no answer: a structure not periodic in three dimensions,
 * one with partly occupied or mixed sites (an alloy), two sites closer than the tolerance, a cell moyo cannot
 * read, or one whose search takes longer than its budget (symmetry-thread.ts).
 */
import type { StructureProperties } from './structure-entry.js';
import { SymmetryThread } from './symmetry-thread.js';

/** The explorer's default tolerance (web/src/by-type/views/Symmetry.tsx), in Å. */
export const SYMMETRY_TOLERANCE = 1e-3;

export interface Symmetry {
  number: number;
  hermannMauguin: string;
  hall: string;
  /**
   * The operations on the structure's fractional positions, in its own cell, as `x,y,z` strings; null where one
   * of them cannot be written in the specification's form (a cell whose axes or origin give an operation three
   * terms in a row, or a translation such as 1/8 or 0.1234).
   */
  operations: string[] | null;
  /** Each site's Wyckoff letter. */
  wyckoffs: string[];
}

/**
 * Finds the groups of a pass's structures, in a thread of its own (symmetry-thread.ts): each structure gets
 * SYMMETRY_BUDGET_MS at most, so that no cell stops the pass, and none the thread that asks.
 */
export class SymmetryFinder {
  private readonly thread = new SymmetryThread();
  /**
   * The groups found lately, by moyo's whole input (cell, positions, species numbers): a structure stored again
   * with the same content (a calculation's input copied, a relaxation that moved nothing) is not analysed
   * again. moyo's answer is a function of that input and the fixed tolerance, so it is the same answer.
   * Bounded by the inputs' length; emptied when full.
   */
  private readonly found = new Map<string, Symmetry | null>();
  private foundChars = 0;

  /** Structures whose analysis ran past its budget. */
  get overran(): number {
    return this.thread.overran;
  }

  /** The cell's space group, or null where none is given (see the module's comment). */
  async find(entry: SymmetryEntry): Promise<Symmetry | null> {
    const cell = symmetryInput(entry);
    if (cell === null) return null;
    const known = this.found.get(cell);
    if (known !== undefined) return known;
    const raw = await this.thread.analyze(cell, SYMMETRY_TOLERANCE);
    const symmetry = raw === null ? null : { ...raw, operations: writtenOperations(raw.operations) };
    if (this.foundChars + cell.length > FOUND_CHARS) {
      this.found.clear();
      this.foundChars = 0;
    }
    this.found.set(cell, symmetry);
    this.foundChars += cell.length;
    return symmetry;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

const FOUND_CHARS = 16_000_000;

type SymmetryEntry = Pick<
  StructureProperties,
  'nperiodic_dimensions' | 'lattice_vectors' | 'fractional_site_positions' | 'species_at_sites' | 'species'
>;

/** moyo's input for the structure, or null where no group is given (see the module's comment). */
export function symmetryInput(entry: SymmetryEntry): string | null {
  const positions = entry.fractional_site_positions;
  if (entry.nperiodic_dimensions !== 3 || positions === null || positions.length === 0) return null;
  if (entry.species.some((s) => s.chemical_symbols.length !== 1)) return null;
  if (coincidentSites(entry.lattice_vectors, positions)) return null;
  const species = new Map<string, number>();
  const numbers = entry.species_at_sites.map((name) => {
    if (!species.has(name)) species.set(name, species.size + 1);
    return species.get(name)!;
  });
  return JSON.stringify({ lattice: { basis: entry.lattice_vectors.flat() }, positions, numbers });
}

/**
 * Whether two sites are closer than the tolerance: moyo's search fails on such a cell (no group), after a
 * time that grows with the cube of the sites (seconds at 100 sites at one position, minutes at 500). Found in
 * one walk over a grid of the tolerance's size (sites in the same or a neighbouring box), within the cell.
 */
export function coincidentSites(cell: number[][], fractional: number[][]): boolean {
  const boxes = new Map<string, number[][]>();
  for (const f of fractional) {
    const wrapped = f.map((x) => x - Math.floor(x));
    const at = [0, 1, 2].map((i) => wrapped.reduce((sum, x, j) => sum + x * cell[j]![i]!, 0));
    const box = at.map((x) => Math.floor(x / SYMMETRY_TOLERANCE));
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) {
          const near = boxes.get(`${box[0]! + dx},${box[1]! + dy},${box[2]! + dz}`);
          if (
            near?.some((p) => Math.hypot(p[0]! - at[0]!, p[1]! - at[1]!, p[2]! - at[2]!) < SYMMETRY_TOLERANCE)
          )
            return true;
        }
    const key = box.join(',');
    const here = boxes.get(key);
    if (here === undefined) boxes.set(key, [at]);
    else here.push(at);
  }
  return false;
}

const TRANSLATION = '(1/2|[12]/3|[1-3]/4|[1-5]/6)';
const TERM = `([-+]?[xyz]([-+][xyz])?([-+]${TRANSLATION})?|[-+]?${TRANSLATION}([-+][xyz]([-+][xyz])?)?)`;
/** The specification's form of an operation (appendix "The Symmetry Operation String Regular Expressions"). */
export const SYMOP = new RegExp(`^${TERM}(,${TERM}){2}$`);

function writtenOperations(operations: { rotation: number[]; translation: number[] }[]): string[] | null {
  const written = operations.map((o) => operationXyz(o.rotation, o.translation));
  return written.every((w) => SYMOP.test(w)) ? written : null;
}

const DENOMINATORS = [1, 2, 3, 4, 6];

/**
 * An operation in Jones' faithful notation, as the CIF dictionary writes it: `-x+1/2,y,-z`. `rotation` is moyo's
 * 3×3 matrix in column-major order.
 */
export function operationXyz(rotation: number[], translation: number[]): string {
  return [0, 1, 2]
    .map((row) => {
      let out = '';
      ['x', 'y', 'z'].forEach((axis, col) => {
        // moyo writes its matrices column by column (nalgebra's order).
        const r = rotation[col * 3 + row]!;
        if (r === 0) return;
        const sign = r < 0 ? '-' : out === '' ? '' : '+';
        out += `${sign}${Math.abs(r) === 1 ? '' : `${Math.abs(r)}*`}${axis}`;
      });
      const t = translation[row]! - Math.floor(translation[row]! + 1e-9);
      if (Math.abs(t) > 1e-6) out += `+${fraction(t)}`;
      return out === '' ? '0' : out;
    })
    .join(',');
}

function fraction(t: number): string {
  for (const d of DENOMINATORS) {
    const n = Math.round(t * d);
    if (Math.abs(t * d - n) < 1e-6 * d) return n === 0 ? '0' : `${n}/${d}`;
  }
  // Not one of the specification's translations: written so that the operation is refused (writtenOperations).
  return String(Number(t.toFixed(6)));
}
