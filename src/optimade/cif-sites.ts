/**
 * A CifData node's file as the attributes a StructureData would have (cell, periodicity, kinds, sites), so that
 * it becomes an OPTIMADE structure like any other (structure-entry.ts). Read: the first data block's cell
 * lengths and angles, its atom sites in fractional coordinates, and its symmetry operations, applied to every
 * site (a file that gives only the asymmetric unit is expanded; equal positions are kept once). Left out,
 * as not readable into sites without a guess: a file with no cell or no sites, a site partly occupied, a
 * symbol outside the periodic table, and a space group other than P1 whose operations the file does not list.
 */
import { SYMBOLS } from '../domain/formats/elements.js';

export const CIF_TYPE = 'data.core.cif.CifData.';

const KNOWN = new Set(SYMBOLS.slice(1));
/** Fractional coordinates closer than this (in each direction, across the cell's faces) are one site. */
const SAME_SITE = 1e-4;

interface Block {
  tags: Map<string, string>;
  loops: Map<string, string>[][];
}

/** The CIF's tokens of its first data block: tags, values, `loop_`; text fields are values. */
function tokens(text: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  let blocks = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith(';')) {
      const field = [line.slice(1)];
      while (++i < lines.length && !lines[i]!.startsWith(';')) field.push(lines[i]!);
      out.push(field.join('\n'));
      continue;
    }
    const re = /'((?:[^']|'(?=\S))*)'(?=\s|$)|"((?:[^"]|"(?=\S))*)"(?=\s|$)|(#.*)|(\S+)/g;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) {
      if (m[3] !== undefined) break;
      const word = m[1] ?? m[2] ?? m[4]!;
      if (m[4] !== undefined && /^data_/i.test(word) && ++blocks > 1) return out;
      out.push(word);
    }
  }
  return out;
}

function parse(text: string): Block {
  const words = tokens(text);
  const block: Block = { tags: new Map(), loops: [] };
  const isTag = (w: string | undefined) => w !== undefined && w.startsWith('_');
  const isKeyword = (w: string | undefined) =>
    w !== undefined && /^(loop_|data_|save_|global_|stop_)/i.test(w);
  for (let i = 0; i < words.length;) {
    const word = words[i]!;
    if (/^loop_$/i.test(word)) {
      const names: string[] = [];
      for (i++; isTag(words[i]); i++) names.push(words[i]!.toLowerCase());
      const rows: Map<string, string>[] = [];
      while (i < words.length && !isTag(words[i]) && !isKeyword(words[i])) {
        const row = new Map<string, string>();
        for (const name of names) row.set(name, words[i++] ?? '?');
        rows.push(row);
      }
      block.loops.push(rows);
    } else if (isTag(word)) {
      block.tags.set(word.toLowerCase(), words[i + 1] ?? '?');
      i += 2;
    } else {
      i += 1;
    }
  }
  return block;
}

/** A CIF number: `5.381(2)` is 5.381; `?` and `.` are none. */
function number(value: string | undefined): number | undefined {
  if (value === undefined || value === '?' || value === '.') return undefined;
  const n = Number(value.replace(/\(\d+\)$/, ''));
  return Number.isFinite(n) ? n : undefined;
}

function loopWith(block: Block, ...names: string[]): Map<string, string>[] | undefined {
  return block.loops.find((rows) => rows.length > 0 && names.some((n) => rows[0]!.has(n)));
}

type Operation = (f: number[]) => number[];

/** `-x+1/2, y, z+1/4` as a function of fractional coordinates. */
function operation(text: string): Operation | undefined {
  const parts = text.toLowerCase().replace(/\s+/g, '').split(',');
  if (parts.length !== 3) return undefined;
  const rows: number[][] = [];
  for (const part of parts) {
    const row = [0, 0, 0, 0];
    const terms = part.match(/[+-]?[^+-]+/g);
    if (terms === null) return undefined;
    for (const term of terms) {
      const m = /^([+-]?)(?:(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?\*?)?([xyz])?$/.exec(term);
      if (m === null || (m[2] === undefined && m[4] === undefined)) return undefined;
      const sign = m[1] === '-' ? -1 : 1;
      const value = m[2] === undefined ? 1 : Number(m[2]) / (m[3] === undefined ? 1 : Number(m[3]));
      row[m[4] === undefined ? 3 : 'xyz'.indexOf(m[4])]! += sign * value;
    }
    rows.push(row);
  }
  return (f) => rows.map((r) => r[0]! * f[0]! + r[1]! * f[1]! + r[2]! * f[2]! + r[3]!);
}

const wrap = (x: number) => {
  const w = x - Math.floor(x);
  return w > 1 - SAME_SITE / 10 ? 0 : w;
};
const near = (a: number[], b: number[]) =>
  a.every((x, i) => {
    const d = Math.abs(x - b[i]!);
    return Math.min(d, 1 - d) < SAME_SITE;
  });

/** The cell vectors of lengths and angles (degrees): a along x, b in the xy plane, as ASE and AiiDA place them. */
function cellOf(a: number, b: number, c: number, alpha: number, beta: number, gamma: number): number[][] {
  const cos = (deg: number) => (Math.abs(deg - 90) < 1e-10 ? 0 : Math.cos((deg * Math.PI) / 180));
  const sin = (deg: number) => (Math.abs(deg - 90) < 1e-10 ? 1 : Math.sin((deg * Math.PI) / 180));
  const cx = c * cos(beta);
  const cy = (c * (cos(alpha) - cos(beta) * cos(gamma))) / sin(gamma);
  return [
    [a, 0, 0],
    [b * cos(gamma), b * sin(gamma), 0],
    [cx, cy, Math.sqrt(Math.max(0, c * c - cx * cx - cy * cy))],
  ];
}

/** The StructureData attributes of a CIF file, or undefined when it cannot be read into sites. */
export function cifAttributes(text: string): Record<string, unknown> | undefined {
  const block = parse(text);
  const tag = (name: string) => number(block.tags.get(name));
  const lengths = ['_cell_length_a', '_cell_length_b', '_cell_length_c'].map(tag);
  const angles = ['_cell_angle_alpha', '_cell_angle_beta', '_cell_angle_gamma'].map((n) => tag(n) ?? 90);
  if (lengths.some((l) => l === undefined || l <= 0)) return undefined;
  const atoms = loopWith(block, '_atom_site_fract_x');
  if (atoms === undefined) return undefined;
  const opsLoop = loopWith(block, '_symmetry_equiv_pos_as_xyz', '_space_group_symop_operation_xyz');
  let operations: Operation[] = [(f) => f];
  if (opsLoop !== undefined) {
    const parsed = opsLoop.map((r) =>
      operation(r.get('_symmetry_equiv_pos_as_xyz') ?? r.get('_space_group_symop_operation_xyz') ?? ''),
    );
    if (parsed.some((o) => o === undefined)) return undefined;
    operations = parsed as Operation[];
  } else {
    const group = tag('_space_group_it_number') ?? tag('_symmetry_int_tables_number');
    if (group !== undefined && group !== 1) return undefined;
  }
  const sites: { symbol: string; fract: number[] }[] = [];
  for (const row of atoms) {
    const symbol = /^[A-Z][a-z]?/.exec(
      row.get('_atom_site_type_symbol') ?? row.get('_atom_site_label') ?? '',
    )?.[0];
    if (symbol === undefined || !KNOWN.has(symbol)) return undefined;
    const occupancy = number(row.get('_atom_site_occupancy')) ?? 1;
    if (Math.abs(occupancy - 1) > 1e-3) return undefined;
    const fract = ['_atom_site_fract_x', '_atom_site_fract_y', '_atom_site_fract_z'].map((n) =>
      number(row.get(n)),
    );
    if (fract.some((x) => x === undefined)) return undefined;
    for (const op of operations) {
      const at = op(fract as number[]).map(wrap);
      if (!sites.some((s) => near(s.fract, at))) sites.push({ symbol, fract: at });
    }
  }
  if (sites.length === 0) return undefined;
  const cell = cellOf(lengths[0]!, lengths[1]!, lengths[2]!, angles[0]!, angles[1]!, angles[2]!);
  const symbols = [...new Set(sites.map((s) => s.symbol))];
  return {
    cell,
    pbc1: true,
    pbc2: true,
    pbc3: true,
    kinds: symbols.map((s) => ({ name: s, symbols: [s], weights: [1.0] })),
    sites: sites.map((s) => ({
      kind_name: s.symbol,
      position: [0, 1, 2].map((j) => s.fract.reduce((sum, f, i) => sum + f * cell[i]![j]!, 0)),
    })),
  };
}
