/** TrajectoryData exports: XSF animations (as aiida writes them) and one CIF block per step. */
import type { Structure } from '../structure.js';
import { cifBlock } from './cif-writer.js';
import { atomicNumber } from './elements.js';
import type { NpyArray } from './npy.js';
import { pyFixed } from './python-text.js';
import { UnsupportedExportError } from './structure-formats.js';

export interface Trajectory {
  symbols: string[];
  /** (steps, 3, 3) */
  cells: NpyArray;
  /** (steps, atoms, 3) */
  positions: NpyArray;
  pbc: [boolean, boolean, boolean];
}

function steps(t: Trajectory): number {
  return t.positions.shape[0] ?? 0;
}

function cellAt(t: Trajectory, step: number): number[][] {
  const base = step * 9;
  return [0, 1, 2].map((row) => t.cells.data.slice(base + row * 3, base + row * 3 + 3));
}

function positionAt(t: Trajectory, step: number, atom: number): number[] {
  const base = (step * t.symbols.length + atom) * 3;
  return t.positions.data.slice(base, base + 3);
}

export function trajectoryXsf(t: Trajectory): string {
  const numbers = t.symbols.map((s) => {
    const z = atomicNumber(s);
    if (z === undefined) throw new UnsupportedExportError(`XSF needs chemical elements; "${s}" is not one`);
    return z;
  });
  let out = `ANIMSTEPS ${steps(t)}\nCRYSTAL\n`;
  for (let step = 0; step < steps(t); step++) {
    out += `PRIMVEC ${step + 1}\n`;
    for (const vector of cellAt(t, step)) out += `${vector.map((v) => pyFixed(v, 5, 18)).join(' ')}\n`;
    out += `PRIMCOORD ${step + 1}\n${t.symbols.length} 1\n`;
    numbers.forEach((z, atom) => {
      out += `${z} ${positionAt(t, step, atom)
        .map((v) => pyFixed(v, 10, 18))
        .join(' ')}\n`;
    });
  }
  return out;
}

/** The structure of one step, as aiida's get_step_structure builds it (one kind per symbol). */
export function stepStructure(t: Trajectory, step: number): Structure {
  return {
    cell: cellAt(t, step),
    pbc: t.pbc,
    kinds: [...new Set(t.symbols)].map((s) => ({ name: s, symbols: [s], weights: [1] })),
    sites: t.symbols.map((s, atom) => ({ kind_name: s, position: positionAt(t, step, atom) })),
  };
}

export function trajectoryCif(t: Trajectory): string {
  let out = '';
  for (let step = 0; step < steps(t); step++) out += cifBlock('0', stepStructure(t, step), (k) => k);
  return out;
}
