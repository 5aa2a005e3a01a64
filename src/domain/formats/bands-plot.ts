/**
 * The band-structure plot of `mpl_pdf` and `mpl_png`: the figure aiida's matplotlib script draws (6.4 × 4.8 in,
 * matplotlib's default axes box, k-point ticks with a grid, "Dispersion (units)"), drawn by Quarry itself as
 * vector graphics: written straight into a PDF, and rendered to PNG at 300 dpi by resvg in a worker thread
 * (docs/compatibility.md).
 */
import { deflateSync } from 'node:zlib';
import type { PlotDict } from './bands-matplotlib.js';
import { pngWorkers } from './png-workers.js';

/** Figure size in points (6.4 × 4.8 in) and matplotlib's default axes box, as fractions of it. */
const WIDTH = 460.8;
const HEIGHT = 345.6;
const BOX = { left: 0.125, right: 0.9, bottom: 0.11, top: 0.88 };

interface Figure {
  /** Polylines in figure points, y growing downwards. */
  lines: { points: [number, number][]; width: number; color: string }[];
  texts: { x: number; y: number; text: string; anchor: 'middle' | 'end'; rotate?: boolean; size: number }[];
  frame: { x0: number; y0: number; x1: number; y1: number };
}

/** matplotlib's labels use TeX for Greek letters: `$\Gamma$` is drawn as Γ. */
const GREEK: Record<string, string> = { Gamma: 'Γ', Delta: 'Δ', Lambda: 'Λ', Sigma: 'Σ' };
const plain = (label: string) =>
  label
    .replace(/\\(Gamma|Delta|Lambda|Sigma)/g, (_, name: string) => GREEK[name] ?? name)
    .replace(/\$_\{(.*?)\}\$/g, '$1')
    .replaceAll('$', '');

/** Round tick positions, 4 to 9 of them, on steps of 1, 2, 2.5 or 5 times a power of ten. */
function niceTicks(min: number, max: number): number[] {
  const span = max - min || 1;
  const magnitude = 10 ** Math.floor(Math.log10(span / 8));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => span / s <= 9) ?? 10 * magnitude;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

export function figureOf(d: PlotDict): Figure {
  const [x0, x1] = [BOX.left * WIDTH, BOX.right * WIDTH];
  const [y0, y1] = [(1 - BOX.top) * HEIGHT, (1 - BOX.bottom) * HEIGHT];
  const [xmin, xmax, ymin, ymax] = [d.x_min_lim, d.x_max_lim, d.y_min_lim, d.y_max_lim].map(
    (v) => v.value,
  ) as [number, number, number, number];
  const fx = (x: number) => x0 + ((x - xmin) / (xmax - xmin || 1)) * (x1 - x0);
  const fy = (y: number) => y1 - ((y - ymin) / (ymax - ymin || 1)) * (y1 - y0);
  const figure: Figure = { lines: [], texts: [], frame: { x0, y0, x1, y1 } };
  d.tick_pos.forEach((pos, i) => {
    const x = fx(pos.value);
    figure.lines.push({
      points: [
        [x, y0],
        [x, y1],
      ],
      width: 0.5,
      color: '#888888',
    });
    figure.texts.push({ x, y: y1 + 14, text: plain(d.tick_labels[i] ?? ''), anchor: 'middle', size: 10 });
  });
  for (const v of niceTicks(ymin, ymax)) {
    const y = fy(v);
    figure.lines.push({
      points: [
        [x0, y],
        [x0 - 3.5, y],
      ],
      width: 0.8,
      color: '#000000',
    });
    figure.texts.push({ x: x0 - 6, y: y + 3.5, text: String(v).replace('-', '−'), anchor: 'end', size: 10 });
  }
  const single = d.paths.length === 1;
  for (const path of d.paths) {
    if (!single && path.length <= 1) continue;
    path.values.forEach((band, i) => {
      const color = (d.band_type_idx[i] ?? 0) % 2 === 0 ? '#000000' : '#ff0000';
      const points = band.map((v, k): [number, number] => [fx(path.x[k]!.value), fy(v.value)]);
      // One segment: each point as a short horizontal marker, as the script's scatter(marker="_") draws it.
      if (single)
        for (const [x, y] of points)
          figure.lines.push({
            points: [
              [x - 3, y],
              [x + 3, y],
            ],
            width: 1,
            color,
          });
      else figure.lines.push({ points, width: 0.5, color });
    });
  }
  figure.texts.push({
    x: 20,
    y: (y0 + y1) / 2,
    text: d.yaxis_label,
    anchor: 'middle',
    rotate: true,
    size: 10,
  });
  return figure;
}

const escapeXml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function figureSvg(f: Figure): string {
  const body = [
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    ...f.lines.map(
      (l) =>
        `<polyline fill="none" stroke="${l.color}" stroke-width="${l.width}" points="${l.points.map((p) => p.join(',')).join(' ')}"/>`,
    ),
    `<rect x="${f.frame.x0}" y="${f.frame.y0}" width="${f.frame.x1 - f.frame.x0}" height="${f.frame.y1 - f.frame.y0}" fill="none" stroke="#000000" stroke-width="0.8"/>`,
    ...f.texts.map(
      (t) =>
        `<text x="${t.x}" y="${t.y}" font-family="DejaVu Sans, sans-serif" font-size="${t.size}" text-anchor="${t.anchor}"${t.rotate ? ` transform="rotate(-90 ${t.x} ${t.y})"` : ''}>${escapeXml(t.text)}</text>`,
    ),
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">${body.join('')}</svg>`;
}

/**
 * The figure at 300 dpi (1920 × 1440 pixels), as the reference's savefig(dpi=300) gives it, drawn by a worker
 * thread (png-workers.ts) before `deadline` (ms since the epoch).
 */
export function figurePng(f: Figure, deadline = Date.now() + 30_000): Promise<Buffer> {
  return pngWorkers().render(figureSvg(f), 1920, deadline);
}

/** A one-page PDF of the figure: vector lines, text in the standard Helvetica (Greek letters from Symbol). */
export function figurePdf(f: Figure): Buffer {
  const n = (v: number) => Number(v.toFixed(3)).toString();
  const rgb = (hex: string) => [1, 3, 5].map((i) => n(parseInt(hex.slice(i, i + 2), 16) / 255)).join(' ');
  const ops: string[] = [];
  for (const l of f.lines) {
    const [first, ...rest] = l.points;
    if (!first) continue;
    ops.push(`${rgb(l.color)} RG ${n(l.width)} w ${n(first[0])} ${n(HEIGHT - first[1])} m`);
    for (const [x, y] of rest) ops.push(`${n(x)} ${n(HEIGHT - y)} l`);
    ops.push('S');
  }
  const { x0, y0, x1, y1 } = f.frame;
  ops.push(`0 0 0 RG 0.8 w ${n(x0)} ${n(HEIGHT - y1)} ${n(x1 - x0)} ${n(y1 - y0)} re S`);
  for (const t of f.texts) {
    const greek = /[ΓΔΛΣ]/.test(t.text);
    // Symbol's letters for Γ, Δ, Λ, Σ are G, D, L, S; everything else is plain Latin-1 in Helvetica.
    const text = t.text
      .replace(/[ΓΔΛΣ]/g, (c) => ({ Γ: 'G', Δ: 'D', Λ: 'L', Σ: 'S' })[c] ?? c)
      .replaceAll('−', '-')
      .replace(/[\\()]/g, (c) => `\\${c}`);
    const width = text.length * t.size * 0.55;
    const shift = t.anchor === 'middle' ? width / 2 : width;
    const [x, y] = [t.x, HEIGHT - t.y];
    const matrix = t.rotate ? `0 1 -1 0 ${n(x)} ${n(y)}` : `1 0 0 1 ${n(x)} ${n(y)}`;
    ops.push(`BT /${greek ? 'F2' : 'F1'} ${t.size} Tf ${matrix} Tm ${n(-shift)} 0 Td (${text}) Tj ET`);
  }
  const content = deflateSync(Buffer.from(ops.join('\n'), 'latin1'));
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${WIDTH} ${HEIGHT}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>`,
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>',
    '<< /Producer (Quarry) >>',
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = chunks[0]!.length;
  const push = (b: Buffer) => (chunks.push(b), (length += b.length));
  objects.forEach((object, i) => {
    offsets.push(length);
    if (object === null) {
      push(
        Buffer.from(
          `${i + 1} 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`,
          'latin1',
        ),
      );
      push(content);
      push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
    } else push(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1'));
  });
  const xref = length;
  const table = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 7 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(chunks);
}
