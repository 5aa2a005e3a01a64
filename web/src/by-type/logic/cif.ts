/**
 * Enough of CIF to show a CifData: the first data block's cell, atom sites and symmetry operations, and the
 * sites of the whole unit cell. Pure; a CIF that lacks what a view needs gives an Error naming it.
 */
import { cellFromParameters, toCartesian, type Cell, type Vec3 } from './cell.js';

export type CifValue = string;
export interface CifBlock {
  name: string;
  items: Map<string, CifValue>;
  loops: Array<{ tags: string[]; rows: CifValue[][] }>;
}

/** Splits CIF text into tokens: quoted strings and ;-text fields are one token each; comments dropped. */
export function cifTokens(text: string): string[] {
  const tokens: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith(';')) {
      const field = [line.slice(1)];
      while (++i < lines.length && !(lines[i] as string).startsWith(';')) field.push(lines[i] as string);
      tokens.push(field.join('\n').trim());
      continue;
    }
    let p = 0;
    while (p < line.length) {
      const ch = line[p] as string;
      if (/\s/.test(ch)) {
        p++;
      } else if (ch === '#') {
        break;
      } else if (ch === "'" || ch === '"') {
        // A quote closes only when followed by whitespace or the end of the line (CIF 1.1).
        let end = p + 1;
        while (
          end < line.length &&
          !(line[end] === ch && (end + 1 === line.length || /\s/.test(line[end + 1]!)))
        )
          end++;
        tokens.push(line.slice(p + 1, end));
        p = end + 1;
      } else {
        let end = p;
        while (end < line.length && !/\s/.test(line[end] as string)) end++;
        tokens.push(line.slice(p, end));
        p = end;
      }
    }
  }
  return tokens;
}

/** The data blocks of a CIF text. */
export function parseCif(text: string): CifBlock[] {
  const tokens = cifTokens(text);
  const blocks: CifBlock[] = [];
  let block: CifBlock | undefined;
  let i = 0;
  const isKeyword = (t: string) => t.startsWith('_') || /^(loop_|data_|save_|global_|stop_)/i.test(t);
  while (i < tokens.length) {
    const t = tokens[i] as string;
    if (/^data_/i.test(t)) {
      block = { name: t.slice(5), items: new Map(), loops: [] };
      blocks.push(block);
      i++;
    } else if (!block) {
      i++;
    } else if (/^loop_$/i.test(t)) {
      const tags: string[] = [];
      i++;
      while (i < tokens.length && (tokens[i] as string).startsWith('_'))
        tags.push((tokens[i++] as string).toLowerCase());
      const values: string[] = [];
      while (i < tokens.length && !isKeyword(tokens[i] as string)) values.push(tokens[i++] as string);
      const rows: string[][] = [];
      for (let r = 0; r + tags.length <= values.length && tags.length > 0; r += tags.length)
        rows.push(values.slice(r, r + tags.length));
      block.loops.push({ tags, rows });
    } else if (t.startsWith('_')) {
      const value = tokens[i + 1];
      if (value !== undefined && !isKeyword(value)) {
        block.items.set(t.toLowerCase(), value);
        i += 2;
      } else {
        i++;
      }
    } else {
      i++;
    }
  }
  return blocks;
}

/** A CIF number: "3.8401(2)" is 3.8401; "." and "?" (unknown) are NaN. */
export function cifNumber(value: string | undefined): number {
  if (value === undefined) return NaN;
  return Number(value.replace(/\(\d+\)$/, ''));
}

function column(
  block: CifBlock,
  ...names: string[]
): { loop: CifBlock['loops'][number]; index: number } | undefined {
  for (const name of names)
    for (const loop of block.loops) {
      const index = loop.tags.indexOf(name);
      if (index >= 0) return { loop, index };
    }
  return undefined;
}

/** One symmetry operation "x, y+1/2, -z" as a function of fractional coordinates. */
export function symmetryOperation(op: string): (f: Vec3) => Vec3 {
  const parts = op.toLowerCase().replace(/\s+/g, '').split(',');
  if (parts.length !== 3) throw new Error(`the symmetry operation "${op}" does not have three parts`);
  const terms = parts.map((part) => {
    const coefficients = [0, 0, 0];
    let constant = 0;
    for (const [, sign, body] of part.matchAll(/([+-]?)([^+-]+)/g)) {
      const s = sign === '-' ? -1 : 1;
      const axis = /([\d./]*)\*?([xyz])/.exec(body ?? '');
      if (axis) {
        const factor = axis[1] ? fraction(axis[1]) : 1;
        coefficients['xyz'.indexOf(axis[2] as string)]! += s * factor;
      } else {
        constant += s * fraction(body ?? '');
      }
    }
    if (coefficients.some(Number.isNaN) || Number.isNaN(constant))
      throw new Error(`cannot read the symmetry operation "${op}"`);
    return { coefficients, constant };
  });
  return (f) =>
    terms.map(
      ({ coefficients: c, constant }) => c[0]! * f[0] + c[1]! * f[1] + c[2]! * f[2] + constant,
    ) as Vec3;
}

function fraction(text: string): number {
  const [n, d] = text.split('/');
  return d === undefined ? Number(n) : Number(n) / Number(d);
}

export interface CifSite {
  label: string;
  symbol: string;
  occupancy: number;
  fractional: Vec3;
}

export interface CifStructure {
  block: string;
  lengths: Vec3;
  angles: Vec3;
  cell: Cell;
  spaceGroup?: string;
  /** The sites the file lists (the asymmetric unit). */
  listed: CifSite[];
  /** Every site of the unit cell after the symmetry operations, with Cartesian positions. */
  unitCell: Array<CifSite & { position: Vec3 }>;
}

/** The element of an atom-site label or type symbol: "Si1" -> "Si", "O2-" -> "O". */
export function elementOf(text: string): string {
  const m = /^([A-Z][a-z]?)/.exec(text.trim().replace(/^[a-z]/, (c) => c.toUpperCase()));
  return m ? (m[1] as string) : 'X';
}

export function cifStructure(text: string): CifStructure {
  const block = parseCif(text)[0];
  if (!block) throw new Error('the file has no data_ block');
  const get = (tag: string) => cifNumber(block.items.get(tag));
  const lengths: Vec3 = [get('_cell_length_a'), get('_cell_length_b'), get('_cell_length_c')];
  const angles: Vec3 = [get('_cell_angle_alpha'), get('_cell_angle_beta'), get('_cell_angle_gamma')];
  if ([...lengths, ...angles].some(Number.isNaN))
    throw new Error('the CIF does not give the cell lengths and angles');
  const cell = cellFromParameters(...lengths, ...angles);

  const x = column(block, '_atom_site_fract_x');
  const y = column(block, '_atom_site_fract_y');
  const z = column(block, '_atom_site_fract_z');
  if (!x || !y || !z) throw new Error('the CIF has no fractional atom coordinates (_atom_site_fract_x/y/z)');
  const rows = x.loop.rows;
  const tagIndex = (tag: string) => x.loop.tags.indexOf(tag);
  const [label, type, occ] = ['_atom_site_label', '_atom_site_type_symbol', '_atom_site_occupancy'].map(
    tagIndex,
  );
  const listed: CifSite[] = rows.map((row, i) => {
    const name = label! >= 0 ? (row[label!] as string) : `site${i + 1}`;
    const occupancy = occ! >= 0 ? cifNumber(row[occ!]) : 1;
    return {
      label: name,
      symbol: elementOf(type! >= 0 ? (row[type!] as string) : name),
      occupancy: Number.isNaN(occupancy) ? 1 : occupancy,
      fractional: [cifNumber(row[x.index]), cifNumber(row[y.index]), cifNumber(row[z.index])],
    };
  });

  const ops = column(block, '_space_group_symop_operation_xyz', '_symmetry_equiv_pos_as_xyz');
  const operations = (ops ? ops.loop.rows.map((r) => r[ops.index] as string) : ['x,y,z']).map(
    symmetryOperation,
  );
  const unitCell: CifStructure['unitCell'] = [];
  const wrap = (v: number) => {
    const w = v - Math.floor(v);
    return w > 1 - 1e-4 ? 0 : w;
  };
  for (const site of listed) {
    for (const op of operations) {
      const f = op(site.fractional).map(wrap) as Vec3;
      const same = unitCell.some(
        (u) =>
          u.symbol === site.symbol &&
          u.fractional.every((v, k) => {
            const d = Math.abs(v - f[k]!);
            return Math.min(d, 1 - d) < 1e-3;
          }),
      );
      if (!same) unitCell.push({ ...site, fractional: f, position: toCartesian(cell, f) });
    }
  }
  const spaceGroup =
    block.items.get('_space_group_name_h-m_alt') ??
    block.items.get('_symmetry_space_group_name_h-m') ??
    undefined;
  return { block: block.name, lengths, angles, cell, spaceGroup, listed, unitCell };
}
