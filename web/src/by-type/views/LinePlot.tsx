/**
 * A line plot in SVG: axes with round ticks (or named ticks, as a band structure's), lines clipped to the frame,
 * a title for readers, and under the pointer the value of the nearest line.
 */
import { useState } from 'preact/hooks';
import { linear, niceTicks, padded } from '../logic/scale.js';

export interface PlotLine {
  points: Array<[number, number]>;
  color: string;
  name?: string;
}

interface Props {
  lines: PlotLine[];
  x: [number, number];
  y: [number, number];
  xLabel: string;
  yLabel: string;
  /** Named x positions (k-point labels): drawn as vertical lines with their names instead of numeric ticks. */
  namedTicks?: Array<{ x: number; label: string; raw?: string }>;
  title: string;
  testId?: string;
  /** Shown as given (no padding): a window chosen by the reader. */
  exactY?: boolean;
}

const W = 720;
const H = 420;
const M = { left: 64, right: 16, top: 16, bottom: 48 };

/** A point list as an SVG path, at most one point per pixel column kept so long series stay light. */
function pathOf(
  points: Array<[number, number]>,
  sx: (v: number) => number,
  sy: (v: number) => number,
): string {
  let d = '';
  let last = NaN;
  for (const [x, y] of points) {
    const px = Math.round(sx(x) * 2) / 2;
    const py = Math.round(sy(y) * 10) / 10;
    if (px === last && d !== '') continue;
    d += `${d === '' ? 'M' : 'L'}${px} ${py}`;
    last = px;
  }
  return d;
}

let clipCount = 0;

export function LinePlot({ lines, x, y, xLabel, yLabel, namedTicks, title, testId, exactY }: Props) {
  const [clip] = useState(() => `bt-clip-${++clipCount}`);
  const [hover, setHover] = useState<{ px: number; py: number; text: string } | undefined>(undefined);
  const xd = namedTicks ? x : padded(x, 0.02);
  const yd = exactY ? y : padded(y);
  const sx = linear(xd, [M.left, W - M.right]);
  const sy = linear(yd, [H - M.bottom, M.top]);
  const yTicks = niceTicks(yd[0], yd[1]);
  const xTicks = namedTicks ? [] : niceTicks(xd[0], xd[1], 8);
  const onMove = (event: MouseEvent) => {
    const svg = event.currentTarget as SVGSVGElement;
    const box = svg.getBoundingClientRect();
    const px = ((event.clientX - box.left) / box.width) * W;
    const py = ((event.clientY - box.top) / box.height) * H;
    if (px < M.left || px > W - M.right || py < M.top || py > H - M.bottom) return setHover(undefined);
    const at = xd[0] + ((px - M.left) / (W - M.left - M.right)) * (xd[1] - xd[0]);
    const want = yd[1] - ((py - M.top) / (H - M.top - M.bottom)) * (yd[1] - yd[0]);
    let best: { x: number; y: number; name?: string } | undefined;
    for (const line of lines) {
      let near: [number, number] | undefined;
      for (const point of line.points)
        if (!near || Math.abs(point[0] - at) < Math.abs(near[0] - at)) near = point;
      if (near && (!best || Math.abs(near[1] - want) < Math.abs(best.y - want)))
        best = { x: near[0], y: near[1], name: line.name };
    }
    if (!best) return setHover(undefined);
    setHover({
      px: sx(best.x),
      py: sy(best.y),
      text: `${best.name ? `${best.name}: ` : ''}${best.y.toFixed(4)} at ${best.x.toFixed(4)}`,
    });
  };
  return (
    <svg
      class="bt-plot"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={title}
      data-testid={testId}
      onMouseMove={onMove}
      onMouseLeave={() => setHover(undefined)}
    >
      <title>{title}</title>
      <clipPath id={clip}>
        <rect x={M.left} y={M.top} width={W - M.left - M.right} height={H - M.top - M.bottom} />
      </clipPath>
      {yTicks.map((t) => (
        <g key={`y${t}`}>
          <line class="bt-grid" x1={M.left} x2={W - M.right} y1={sy(t)} y2={sy(t)} />
          <text x={M.left - 6} y={sy(t) + 4} text-anchor="end">
            {t}
          </text>
        </g>
      ))}
      {xTicks.map((t) => (
        <g key={`x${t}`}>
          <line class="bt-grid" x1={sx(t)} x2={sx(t)} y1={M.top} y2={H - M.bottom} />
          <text x={sx(t)} y={H - M.bottom + 16} text-anchor="middle">
            {t}
          </text>
        </g>
      ))}
      {namedTicks?.map((t, i) => (
        <g key={`n${i}`} class="bt-kpoint-label">
          <line class="bt-axis" x1={sx(t.x)} x2={sx(t.x)} y1={M.top} y2={H - M.bottom} />
          <text
            x={sx(t.x)}
            y={H - M.bottom + 16}
            text-anchor="middle"
            data-x={t.x}
            data-label={t.raw ?? t.label}
          >
            {t.label}
          </text>
        </g>
      ))}
      <rect class="bt-axis" x={M.left} y={M.top} width={W - M.left - M.right} height={H - M.top - M.bottom} />
      <g clip-path={`url(#${clip})`}>
        {lines.map((l, i) => (
          <path key={i} d={pathOf(l.points, sx, sy)} fill="none" stroke={l.color} stroke-width={1.5}>
            {l.name && <title>{l.name}</title>}
          </path>
        ))}
      </g>
      {hover && (
        <g class="bt-hover" data-testid="plot-readout">
          <circle cx={hover.px} cy={hover.py} r={4} />
          <text
            x={Math.min(hover.px + 8, W - M.right - 4)}
            y={Math.max(hover.py - 8, M.top + 12)}
            text-anchor={hover.px > W / 2 ? 'end' : 'start'}
          >
            {hover.text}
          </text>
        </g>
      )}
      <text x={(M.left + W - M.right) / 2} y={H - 8} text-anchor="middle">
        {xLabel}
      </text>
      <text transform={`translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)`} text-anchor="middle">
        {yLabel}
      </text>
    </svg>
  );
}

/** Colours for series that read on light and dark backgrounds alike. */
export const SERIES = [
  '#2f81f7',
  '#e8590c',
  '#2da44e',
  '#bf3989',
  '#8250df',
  '#9a6700',
  '#1b7c83',
  '#cf222e',
];
