/**
 * BandsData exports, as aiida's BandsData writes them: the band-plot data (distances along the k-point path,
 * labels, segments) and the text formats built on it (dat_multicolumn, dat_blocks, agr_batch, json).
 */
import { FILE_HEADER } from './array-json.js';
import type { NpyArray } from './npy.js';
import { PyFloat, pyFixed, pyFloat, pyJson } from './python-text.js';

export interface Bands {
  uuid: string;
  label: string;
  /** (k-points, bands) or (2 spins, k-points, bands). */
  bands: NpyArray;
  /** (k-points, 3), in crystal coordinates. */
  kpoints: NpyArray;
  cell?: number[][];
  /** [index, name] pairs (`label_numbers`, `labels`), or undefined when either is missing. */
  labels?: [number, string][];
}

type Vec = [number, number, number];
type Label = [number, string];

export interface PlotData {
  x: number[];
  /** One row per k-point, with every band (both spins side by side). */
  y: number[][];
  bandTypes: number[];
  rawLabels: Label[];
  labels: Label[];
}

/** The reciprocal cell 2π inv(cell)ᵀ, as rows. */
function reciprocal(cell: number[][]): Vec[] {
  const [a, b, c] = cell as [Vec, Vec, Vec];
  const cross = (u: Vec, v: Vec): Vec => [
    u[1] * v[2] - u[2] * v[1],
    u[2] * v[0] - u[0] * v[2],
    u[0] * v[1] - u[1] * v[0],
  ];
  const volume =
    a[0] * (b[1] * c[2] - b[2] * c[1]) +
    a[1] * (b[2] * c[0] - b[0] * c[2]) +
    a[2] * (b[0] * c[1] - b[1] * c[0]);
  return [cross(b, c), cross(c, a), cross(a, b)].map((v) => v.map((x) => (2 * Math.PI * x) / volume) as Vec);
}

function rows(array: NpyArray, width: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < array.data.length; i += width) out.push(array.data.slice(i, i + width));
  return out;
}

/** Bands per k-point, both spins side by side, and the spin (0 or 1) of each column. */
function bandRows(bands: NpyArray): [number[][], number[]] {
  const [a = 0, b = 0, c = 0] = bands.shape;
  if (bands.shape.length === 2) return [rows(bands, b), new Array<number>(b).fill(0)];
  if (bands.shape.length !== 3) throw new Error('bands must have 2 or 3 dimensions');
  const out: number[][] = [];
  for (let k = 0; k < b; k++) {
    const row: number[] = [];
    for (let s = 0; s < a; s++) row.push(...bands.data.slice((s * b + k) * c, (s * b + k + 1) * c));
    out.push(row);
  }
  return [out, [...new Array<number>(c).fill(0), ...new Array<number>(c).fill(1)]];
}

const PRETTIFIERS: Record<string, (label: string) => string> = {
  agr_seekpath: (label) =>
    label
      .replaceAll('GAMMA', '\\xG\\f{}')
      .replaceAll('DELTA', '\\xD\\f{}')
      .replaceAll('LAMBDA', '\\xL\\f{}')
      .replaceAll('SIGMA', '\\xS\\f{}')
      .replace(/_(.?)/g, '\\s$1\\N'),
  latex_seekpath: (label) =>
    label
      .replaceAll('GAMMA', '$\\Gamma$')
      .replaceAll('DELTA', '$\\Delta$')
      .replaceAll('LAMBDA', '$\\Lambda$')
      .replaceAll('SIGMA', '$\\Sigma$')
      .replace(/_(.?)/g, '$$_{$1}$$'),
  gnuplot_seekpath: (label) =>
    label
      .replaceAll('GAMMA', 'Γ')
      .replaceAll('DELTA', 'Δ')
      .replaceAll('LAMBDA', 'Λ')
      .replaceAll('SIGMA', 'Σ')
      .replace(/_(.?)/g, '_{$1}'),
};

/** Labels closer than 1e-6 are written as one, joined by `symbol` (aiida's join_labels). */
function joinLabels(labels: Label[], symbol: string): Label[] {
  const out: Label[] = [];
  labels.forEach((label, i) => {
    const previous = out[out.length - 1];
    if (i > 0 && previous && Math.abs(label[0] - (labels[i - 1] as Label)[0]) < 1e-6)
      previous[1] += symbol + label[1];
    else out.push([label[0], label[1]]);
  });
  return out;
}

export function plotData(b: Bands, prettify?: string, join?: string): PlotData {
  const [y, bandTypes] = bandRows(b.bands);
  let kpoints = rows(b.kpoints, 3) as Vec[];
  if (b.cell) {
    const rec = reciprocal(b.cell);
    kpoints = kpoints.map(
      (k) => [0, 1, 2].map((j) => k[0] * rec[0]![j]! + k[1] * rec[1]![j]! + k[2] * rec[2]![j]!) as Vec,
    );
  }
  const labels = b.labels ?? [];
  const indices = new Set(labels.map((l) => l[0]));
  // Two labelled points in a row are a jump in the path: no distance between them.
  const distances = kpoints.slice(1).map((k, i) => {
    if (indices.has(i + 1) && indices.has(i)) return 0;
    const p = kpoints[i] as Vec;
    const d = [k[0] - p[0], k[1] - p[1], k[2] - p[2]];
    return Math.sqrt(d[0]! * d[0]! + d[1]! * d[1]! + d[2]! * d[2]!);
  });
  const x = [0];
  let sum = 0;
  for (const d of distances) x.push((sum += d));
  const rawLabels = labels.map(([i, name]): Label => [x[i] as number, name]);
  let shown = rawLabels.map(([pos, name]): Label => [
    pos,
    prettify ? (PRETTIFIERS[prettify] ?? ((s) => s))(name) : name,
  ]);
  if (join) shown = joinLabels(shown, join);
  return { x, y, bandTypes, rawLabels, labels: shown };
}

export function headerComment(b: Bands, p: PlotData, commentChar = '#'): string {
  const lines = [
    ...FILE_HEADER.split('\n'),
    '',
    `Dumped from BandsData UUID=${b.uuid}`,
    '\tpoints\tbands',
    `\t${p.y.length}\t${p.y[0]?.length ?? 0}`,
    '',
    '\tlabel\tpoint',
    ...p.rawLabels.map(([pos, name]) => `\t${name}\t${pyFixed(pos, 8)}`),
  ];
  return lines.map((line) => `${commentChar} ${line}`).join('\n');
}

export function datMulticolumn(b: Bands): string {
  const p = plotData(b, undefined, '|');
  const lines = [headerComment(b, p)];
  p.y.forEach((row, k) => lines.push([p.x[k] as number, ...row].map((v) => pyFixed(v, 8)).join('\t')));
  return `${lines.join('\n')}\n`;
}

export function datBlocks(b: Bands): string {
  const p = plotData(b, undefined, '|');
  const lines = [headerComment(b, p)];
  for (let band = 0; band < (p.y[0]?.length ?? 0); band++) {
    p.y.forEach((row, k) =>
      lines.push(`${pyFixed(p.x[k] as number, 8)}\t${pyFixed(row[band] as number, 8)}`),
    );
    lines.push('', '');
  }
  return lines.join('\n');
}

export function agrBatch(b: Bands): string {
  const p = plotData(b, 'agr_seekpath', '|');
  const all = p.y.flat();
  const batch = [
    headerComment(b, p),
    'READ XY "_data.dat"',
    `world ${pyFloat(Math.min(...p.x))}, ${pyFloat(Math.min(...all))}, ${pyFloat(Math.max(...p.x))}, ${pyFloat(Math.max(...all))}`,
    'yaxis label "Dispersion"',
    'xaxis  tick place both',
    'xaxis  tick spec type both',
    `xaxis  tick spec ${p.labels.length}`,
    ...p.labels.flatMap(([pos, name], i) => [
      `xaxis  tick major ${i}, ${pyFloat(pos)}`,
      `xaxis  ticklabel ${i}, "${name}"`,
    ]),
    'xaxis  tick major color 7',
    'xaxis  tick major grid on',
    'yaxis  tick minor ticks 3',
    'frame linewidth 1.0',
    'map font 4 to "Helvetica", "Helvetica"',
    'yaxis  label font 4',
    'xaxis  label font 4',
    ...(p.y[0] ?? []).flatMap((_, i) => [`s${i} line color 1`, `s${i} linewidth 1`]),
  ];
  return `${batch.join('\n')}\n`;
}

const GNUPLOT_NOTES = `## Uncomment the next two lines to write directly to PDF
## Note: You need to have gnuplot installed with pdfcairo support!
#set term pdfcairo
#set output 'out.pdf'

### Uncomment one of the options below to change font
### For the LaTeX fonts, you can download them from here:
### https://sourceforge.net/projects/cm-unicode/
### And then install them in your system
## LaTeX Serif font, if installed
#set termopt font "CMU Serif, 12"
## LaTeX Sans Serif font, if installed
#set termopt font "CMU Sans Serif, 12"
## Classical Times New Roman
#set termopt font "Times New Roman, 12"
`;

/** A gnuplot script plotting the bands from `band_data.dat` (the data file is not part of the download). */
export function gnuplotScript(b: Bands, units: string): string {
  const p = plotData(b, 'gnuplot_seekpath', '|');
  const all = p.y.flat();
  const xtics = p.labels.map(([pos, name]) => `"${name}" ${pyFloat(pos)}`).join(', ');
  const script = [
    headerComment(b, p, '# '),
    '',
    GNUPLOT_NOTES,
    'set termopt enhanced',
    'set encoding utf8',
    `set xtics (${xtics})`,
    'unset key',
    `set yrange [${pyFloat(Math.min(...all))}:${pyFloat(Math.max(...all))}]`,
    `set ylabel "Dispersion (${units})"`,
  ];
  if (p.x.length > 1) {
    script.push(
      `set xrange [${pyFloat(Math.min(...p.x))}:${pyFloat(Math.max(...p.x))}]`,
      'set grid xtics lt 1 lc rgb "#888888"',
      'plot "band_data.dat" with l lc rgb "#000000"',
    );
  } else {
    script.push(
      'set xrange [-1.0:1.0]',
      'plot "band_data.dat" using ($1-0.25):($2):(0.5):(0) with vectors nohead lc rgb "#000000"',
    );
  }
  return `${script.join('\n')}\n`;
}

export interface Segment {
  length: number;
  from: string;
  to: string;
  values: PyFloat[][];
  x: PyFloat[];
  two_band_types: boolean;
}

/** The band segments between labelled points, as the AiiDA band visualizer reads them. */
export function segments(b: Bands) {
  const p = plotData(b);
  const labels: Label[] = (b.labels ?? []).map(([i, name]) => [i, name]);
  const floats = (v: number[]) => v.map((x) => new PyFloat(x));
  const twoBandTypes = b.bands.shape.length === 3;
  const segment = (from: number, to: number, fromName: string, toName: string): Segment => ({
    length: to - from,
    from: fromName,
    to: toName,
    values: (p.y[0] ?? []).map((_, band) =>
      floats(p.y.slice(from, to + 1).map((row) => row[band] as number)),
    ),
    x: floats(p.x.slice(from, to + 1)),
    two_band_types: twoBandTypes,
  });
  const path: string[][] = [];
  const paths: Segment[] = [];
  if (labels.length > 1) {
    if (labels[0]?.[0] !== 0) labels.unshift([0, '']);
    if (labels[labels.length - 1]?.[0] !== p.y.length - 1) labels.push([p.y.length - 1, '']);
    for (let i = 0; i + 1 < labels.length; i++) {
      const [[from, fromName], [to, toName]] = [labels[i] as Label, labels[i + 1] as Label];
      if (to - from > 1) path.push([fromName, toName]);
      paths.push(segment(from, to, fromName, toName));
    }
  } else {
    paths.push(segment(0, p.y.length - 1, '0', '1'));
    path.push(['0', '1']);
  }
  return { label: b.label, path, paths };
}

export function bandsJson(b: Bands, comments = true): string {
  return pyJson({
    ...segments(b),
    original_uuid: b.uuid,
    ...(comments ? { comments: FILE_HEADER } : {}),
  });
}
