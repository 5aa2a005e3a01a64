/** ArrayData's arrays: names and shapes from the attributes (`array|name`), and tables of the small ones. Pure. */
import { isCell, isVec3, type Cell } from './cell.js';

export interface ArrayInfo {
  name: string;
  shape: number[];
  size: number;
}

export function arrayInfos(attributes: Record<string, unknown>): ArrayInfo[] {
  const out: ArrayInfo[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith('array|') || !Array.isArray(value)) continue;
    const shape = value.map(Number);
    out.push({ name: key.slice(6), shape, size: shape.reduce((a, b) => a * b, 1) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Whether an array is small enough to show whole (its values come with the `json` download). */
export const SMALL_ARRAY = 2000;

/**
 * An array as table rows: a 1-D array is one column, a 2-D array its matrix, a higher one is flattened to rows
 * of its last axis, each row headed by its leading indices ("[2, 0]").
 */
export function tableRows(value: unknown): { index: string; cells: unknown[] }[] {
  if (!Array.isArray(value)) return [{ index: '', cells: [value] }];
  if (!value.some(Array.isArray)) return value.map((v, i) => ({ index: String(i), cells: [v] }));
  const rows: { index: string; cells: unknown[] }[] = [];
  const walk = (v: unknown, path: number[]) => {
    if (Array.isArray(v) && v.some(Array.isArray)) v.forEach((w, i) => walk(w, [...path, i]));
    else
      rows.push({
        index: path.length === 1 ? String(path[0]) : `[${path.join(', ')}]`,
        cells: Array.isArray(v) ? v : [v],
      });
  };
  value.forEach((w, i) => walk(w, [i]));
  return rows;
}

/** A number as a table shows it: integers whole, others to 6 significant digits. */
export function formatNumber(v: unknown): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '' : String(v);
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e6)) return v.toExponential(4);
  return String(Number(v.toPrecision(6)));
}

/**
 * A number too small or too large to read in plain digits, as a mantissa and a power of ten
 * (7.748e-8 -> { mantissa: "7.7483353864736", exponent: -8 }); undefined for numbers that read well as they are.
 */
export function scientific(v: number): { mantissa: string; exponent: number } | undefined {
  const abs = Math.abs(v);
  if (!Number.isFinite(v) || abs === 0 || (abs >= 1e-4 && abs < 1e6)) return undefined;
  const [mantissa, exponent] = v.toExponential().split('e');
  return { mantissa: mantissa as string, exponent: Number(exponent) };
}

/** XyData's series: the x array and each y array with its name and unit, from attributes and array values. */
export function xySeries(
  attributes: Record<string, unknown>,
  arrays: Record<string, unknown>,
):
  | {
      x: { name: string; unit: string; values: number[] };
      ys: { name: string; unit: string; values: number[] }[];
    }
  | undefined {
  const x = arrays.x_array;
  if (!Array.isArray(x)) return undefined;
  const names = Array.isArray(attributes.y_names) ? attributes.y_names.map(String) : [];
  const units = Array.isArray(attributes.y_units) ? attributes.y_units.map(String) : [];
  const ys = [];
  for (let i = 0; Array.isArray(arrays[`y_array_${i}`]); i++)
    ys.push({
      name: names[i] ?? `y${i}`,
      unit: units[i] ?? '',
      values: (arrays[`y_array_${i}`] as unknown[]).map(Number),
    });
  return {
    x: {
      name: String(attributes.x_name ?? 'x'),
      unit: String(attributes.x_units ?? ''),
      values: x.map(Number),
    },
    ys,
  };
}

/**
 * One step of a TrajectoryData from its arrays (positions[step][atom][xyz], cells[step][3][3] when stored) and
 * symbols; undefined when the values do not hold that step.
 */
export function trajectoryFrame(
  values: Record<string, unknown>,
  symbols: string[],
  step: number,
): { atoms: Array<{ symbol: string; position: [number, number, number] }>; cell?: Cell } | undefined {
  const positions = (values.positions as unknown[] | undefined)?.[step];
  if (!Array.isArray(positions)) return undefined;
  const atoms = [];
  for (const [i, p] of positions.entries()) {
    if (!isVec3(p)) return undefined;
    atoms.push({ symbol: symbols[i] ?? 'X', position: p });
  }
  const cell = (values.cells as unknown[] | undefined)?.[step];
  return { atoms, cell: isCell(cell) ? cell : undefined };
}
