/** StructureData exports: XYZ, XSF and the ChemDoodle JSON the Materials Cloud viewer draws. */
import { hasVacancies, isAlloy, kindSymbolString, type Kind, type Structure } from '../structure.js';
import { atomicNumber } from './elements.js';
import { PyFloat, pyFixed, pyFloat, pyJson } from './python-text.js';

export class UnsupportedExportError extends Error {}

function kindsOf(structure: Structure): Map<string, Kind> {
  return new Map(structure.kinds.map((k) => [k.name, k]));
}

function simpleKinds(structure: Structure, format: string): Map<string, Kind> {
  if (structure.kinds.some((k) => isAlloy(k) || hasVacancies(k))) {
    throw new UnsupportedExportError(
      `${format} cannot describe alloys or vacancies, and this structure has them; use cif or chemdoodle instead`,
    );
  }
  return kindsOf(structure);
}

const symbolOf = (kinds: Map<string, Kind>, name: string) => kinds.get(name)?.symbols[0] ?? name;
const pyBool = (b: boolean) => (b ? 'True' : 'False');

export function toXyz(structure: Structure): string {
  const kinds = simpleKinds(structure, 'XYZ');
  const cell = structure.cell.flat().map(pyFloat).join(' ');
  const lines = [
    String(structure.sites.length),
    `Lattice="${cell}" pbc="${structure.pbc.map(pyBool).join(' ')}"`,
  ];
  for (const site of structure.sites) {
    const [x, y, z] = site.position as [number, number, number];
    lines.push(
      `${symbolOf(kinds, site.kind_name).padEnd(6)} ${pyFixed(x, 10, 18)} ${pyFixed(y, 10, 18)} ${pyFixed(z, 10, 18)}`,
    );
  }
  return lines.join('\n');
}

export function toXsf(structure: Structure): string {
  const kinds = simpleKinds(structure, 'XSF');
  let out = 'CRYSTAL\nPRIMVEC 1\n';
  for (const vector of structure.cell) out += `${vector.map((v) => pyFixed(v, 10, 18)).join(' ')}\n`;
  out += `PRIMCOORD 1\n${structure.sites.length} 1\n`;
  for (const site of structure.sites) {
    const symbol = symbolOf(kinds, site.kind_name);
    const z = atomicNumber(symbol);
    if (z === undefined)
      throw new UnsupportedExportError(`XSF needs chemical elements; "${symbol}" is not one`);
    out += `${z} ${site.position.map((v) => pyFixed(v, 10, 18)).join(' ')}\n`;
  }
  return out;
}

/** aiida's atom_kinds_to_html: `{Au0.25Cu0.75}` -> `Au<sub>0.25</sub> + Cu<sub>0.75</sub>`. */
export function kindHtml(kind: string): string {
  const pieces: string[] = [];
  for (const m of kind.matchAll(/([A-Z][a-z]*)([01][.[0-9]*\]?)?/g)) {
    const species = m[1] !== 'X' ? (m[1] as string) : 'vacancy';
    pieces.push(m[2] ? `${species}<sub>${m[2]}</sub>` : species);
  }
  return pieces.join(' + ');
}

export function toChemdoodle(structure: Structure): string {
  const kinds = kindsOf(structure);
  const [a, b, c] = structure.cell as [number[], number[], number[]];
  const add = (...vs: number[][]) =>
    [0, 1, 2].map((i) => vs.reduce((s, v, j) => (j === 0 ? v[i]! : s + v[i]!), 0));
  const center = add(a, b, c).map((v) => v / 2.0);
  const minus = (v: number[]) => v.map((x, i) => x - center[i]!);
  // The reference shifts by 0*a + 0*b + 0*c - center (a 1x1x1 supercell); zeros keep their signs as in numpy.
  const shift = [0, 1, 2].map((i) => 0 * a[i]! + 0 * b[i]! + 0 * c[i]! - center[i]!);
  const f = (v: number[]) => v.map((x) => new PyFloat(x));
  const atoms = structure.sites.map((site) => {
    const kind = kinds.get(site.kind_name);
    const label = kind ? kindSymbolString(kind) : site.kind_name;
    return {
      l: label,
      x: new PyFloat(site.position[0]! + shift[0]!),
      y: new PyFloat(site.position[1]! + shift[1]!),
      z: new PyFloat(site.position[2]! + shift[2]!),
      atomic_elements_html: kindHtml(label),
    };
  });
  const cell = {
    t: 'UnitCell',
    i: 's0',
    o: f(center.map((x) => -x)),
    x: f(minus(a)),
    y: f(minus(b)),
    z: f(minus(c)),
    xy: f(minus(add(a, b))),
    xz: f(minus(add(a, c))),
    yz: f(minus(add(b, c))),
    xyz: f(minus(add(a, b, c))),
  };
  return pyJson({ s: [cell], m: [{ a: atoms }], units: '&Aring;' });
}
