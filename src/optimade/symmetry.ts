/**
 * A structure's space group, found on the server once per structure while its side table is built: moyo (the
 * symmetry finder of the spglib authors, as WebAssembly, the library the explorer runs in the browser) at the
 * explorer's default distance tolerance, with the kinds as species (as the explorer's first answer does).
 * No group is given (null) where the question has no answer: a structure not periodic in three dimensions,
 * one with partly occupied or mixed sites (an alloy), a cell moyo cannot read.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as moyo from '@spglib/moyo-wasm';
import type { StructureProperties } from './structure-entry.js';

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

let loaded = false;
/** The WebAssembly module, compiled once per thread (a build's workers each load their own). */
function ready(): typeof moyo {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    moyo.initSync({ module: readFileSync(require.resolve('@spglib/moyo-wasm/moyo_wasm_bg.wasm')) });
    loaded = true;
  }
  return moyo;
}

/** The cell's space group, or null where none is given (see the module's comment). */
export function symmetryOf(
  entry: Pick<
    StructureProperties,
    'nperiodic_dimensions' | 'lattice_vectors' | 'fractional_site_positions' | 'species_at_sites' | 'species'
  >,
): Symmetry | null {
  const positions = entry.fractional_site_positions;
  if (entry.nperiodic_dimensions !== 3 || positions === null || positions.length === 0) return null;
  if (entry.species.some((s) => s.chemical_symbols.length !== 1)) return null;
  const species = new Map<string, number>();
  const numbers = entry.species_at_sites.map((name) => {
    if (!species.has(name)) species.set(name, species.size + 1);
    return species.get(name)!;
  });
  const cell = JSON.stringify({ lattice: { basis: entry.lattice_vectors.flat() }, positions, numbers });
  if (found.has(cell)) return found.get(cell)!;
  const symmetry = analyzed(cell);
  if (foundChars + cell.length > FOUND_CHARS) {
    found.clear();
    foundChars = 0;
  }
  found.set(cell, symmetry);
  foundChars += cell.length;
  return symmetry;
}

/**
 * The groups found lately in this thread, by moyo's whole input (cell, positions, species numbers): a structure
 * stored again with the same content (a calculation's input copied, a relaxation that moved nothing) is not
 * analysed again. moyo's answer is a function of that input and the fixed tolerance, so it is the same answer.
 * Bounded by the inputs' length; emptied when full.
 */
const found = new Map<string, Symmetry | null>();
const FOUND_CHARS = 16_000_000;
let foundChars = 0;

function analyzed(cell: string): Symmetry | null {
  const m = ready();
  try {
    const group = m.analyze_cell(cell, SYMMETRY_TOLERANCE, 'Standard');
    return {
      number: group.number,
      hermannMauguin: m.space_group_type(group.number).hm_short,
      hall: m.hall_symbol_entry(group.hall_number).hall_symbol,
      operations: writtenOperations(group.operations),
      wyckoffs: group.wyckoffs,
    };
  } catch {
    return null;
  }
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
