/**
 * A line plot in SVG: axes with round ticks (or named ticks, as a band structure's), lines clipped to the frame,
 * a title for readers, under the pointer the value of the nearest line, and zoom: drag a box (or a band across
 * one axis) over the plot, or the Zoom in / out buttons; Reset zoom shows everything again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useUrlParam } from '../../url-state.js';
import { linear, niceTicks, padded, zoomed } from '../logic/scale.js';

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
  /** Horizontal lines at these values, dashed and named (a Fermi energy). */
  markers?: Array<{ y: number; label: string }>;
  /** The URL parameter that keeps the zoom (`x0,x1,y0,y1`), so that a reload shows the same; none keeps it here. */
  urlKey?: string;
}

/**
 * The drawing's size in its own units: 720 wide, or on a narrower screen as wide as it is shown (one unit a CSS
 * pixel), so that its 12-unit text is 12 px on a phone instead of shrinking with the drawing.
 */
const WIDE = { W: 720, H: 420 };
const NARROW_BELOW = 560;
const narrowSize = (width: number) => {
  const W = Math.max(280, Math.round(width));
  return { W, H: Math.round(W * 0.85) };
};
const M = { left: 64, right: 16, top: 16, bottom: 48 };

const zoomText = (z: { x: Domain; y: Domain }) => [...z.x, ...z.y].map((v) => +v.toPrecision(6)).join(',');
function zoomOf(text: string | undefined): { x: Domain; y: Domain } | undefined {
  const v = (text ?? '').split(',').map(Number);
  if (v.length !== 4 || !v.every(Number.isFinite) || v[0]! >= v[1]! || v[2]! >= v[3]!) return undefined;
  return { x: [v[0]!, v[1]!], y: [v[2]!, v[3]!] };
}

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

type Domain = [number, number];
/** A drag shorter than this (viewBox units) on an axis leaves that axis as it is: a click is not a zoom. */
const MIN_DRAG = 8;

export function LinePlot({
  lines,
  x,
  y,
  xLabel,
  yLabel,
  namedTicks,
  title,
  testId,
  exactY,
  urlKey,
  markers,
}: Props) {
  const [clip] = useState(() => `bt-clip-${++clipCount}`);
  const [hover, setHover] = useState<{ px: number; py: number; text: string } | undefined>(undefined);
  const [localZoom, setLocalZoom] = useState<{ x: Domain; y: Domain } | undefined>(undefined);
  const [kept, keep] = useUrlParam(urlKey);
  const zoom = urlKey === undefined ? localZoom : zoomOf(kept);
  const setZoom = (z: { x: Domain; y: Domain } | undefined) =>
    urlKey === undefined ? setLocalZoom(z) : keep(z === undefined ? undefined : zoomText(z));
  const [drag, setDrag] = useState<{ x0: number; y0: number; x1: number; y1: number } | undefined>(undefined);
  // New data or a new window (the reader's energy range): the zoom starts over; not at the first drawing, which
  // shows the zoom the address holds.
  const dataKey = `${x[0]},${x[1]},${y[0]},${y[1]},${lines.length}`;
  const drawnKey = useRef(dataKey);
  useEffect(() => {
    if (drawnKey.current === dataKey) return;
    drawnKey.current = dataKey;
    setZoom(undefined);
  }, [dataKey]);
  // The drawing's units follow its width on screen, so that tick labels stay readable on a phone.
  const frame = useRef<HTMLDivElement>(null);
  const [shownWidth, setShownWidth] = useState<number | undefined>(undefined);
  useEffect(() => {
    const element = frame.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setShownWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const narrow = shownWidth !== undefined && shownWidth < NARROW_BELOW;
  const { W, H } = narrow ? narrowSize(shownWidth) : WIDE;
  /** A pointer event's place in the plot's viewBox. */
  const inBox = (event: MouseEvent): { px: number; py: number } => {
    const box = (event.currentTarget as SVGSVGElement).getBoundingClientRect();
    return {
      px: ((event.clientX - box.left) / box.width) * W,
      py: ((event.clientY - box.top) / box.height) * H,
    };
  };
  const inFrame = (px: number, py: number) =>
    px >= M.left && px <= W - M.right && py >= M.top && py <= H - M.bottom;
  const full: { x: Domain; y: Domain } = { x: namedTicks ? x : padded(x, 0.02), y: exactY ? y : padded(y) };
  const xd = zoom?.x ?? full.x;
  const yd = zoom?.y ?? full.y;
  const sx = linear(xd, [M.left, W - M.right]);
  const sy = linear(yd, [H - M.bottom, M.top]);
  const yTicks = niceTicks(yd[0], yd[1]);
  const xTicks = namedTicks ? [] : niceTicks(xd[0], xd[1], narrow ? 5 : 8);
  const xAt = (px: number) => xd[0] + ((px - M.left) / (W - M.left - M.right)) * (xd[1] - xd[0]);
  const yAt = (py: number) => yd[1] - ((py - M.top) / (H - M.top - M.bottom)) * (yd[1] - yd[0]);
  const scaleBy = (factor: number) =>
    setZoom({ x: zoomed(xd, factor, full.x), y: zoomed(yd, factor, full.y) });
  const onDown = (event: PointerEvent) => {
    const { px, py } = inBox(event);
    if (event.button !== 0 || !inFrame(px, py)) return;
    (event.currentTarget as SVGSVGElement).setPointerCapture?.(event.pointerId);
    setDrag({ x0: px, y0: py, x1: px, y1: py });
  };
  const onUp = () => {
    if (!drag) return;
    setDrag(undefined);
    const clampX = (v: number) => Math.min(W - M.right, Math.max(M.left, v));
    const clampY = (v: number) => Math.min(H - M.bottom, Math.max(M.top, v));
    const wide = Math.abs(drag.x1 - drag.x0) >= MIN_DRAG;
    const tall = Math.abs(drag.y1 - drag.y0) >= MIN_DRAG;
    if (!wide && !tall) return;
    const xs = [xAt(clampX(drag.x0)), xAt(clampX(drag.x1))].sort((a, b) => a - b) as Domain;
    const ys = [yAt(clampY(drag.y0)), yAt(clampY(drag.y1))].sort((a, b) => a - b) as Domain;
    setZoom({ x: wide ? xs : xd, y: tall ? ys : yd });
    setHover(undefined);
  };
  const onMove = (event: MouseEvent) => {
    const { px, py } = inBox(event);
    if (drag) return setDrag({ ...drag, x1: px, y1: py });
    if (!inFrame(px, py)) return setHover(undefined);
    const at = xAt(px);
    const want = yAt(py);
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
  const shownTicks = namedTicks?.filter((t) => t.x >= xd[0] - 1e-9 && t.x <= xd[1] + 1e-9);
  return (
    <div class="bt-plot-frame" ref={frame}>
      <div class="bt-plot-controls" role="group" aria-label={`Zoom of ${title}`}>
        <button type="button" class="bt-button" onClick={() => scaleBy(0.5)}>
          Zoom in
        </button>
        <button type="button" class="bt-button" disabled={!zoom} onClick={() => scaleBy(2)}>
          Zoom out
        </button>
        <button type="button" class="bt-button" disabled={!zoom} onClick={() => setZoom(undefined)}>
          Reset zoom
        </button>
        <span class="bt-muted">or drag over the plot</span>
      </div>
      <svg
        class="bt-plot"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={title}
        data-testid={testId}
        data-x-domain={xd.map((v) => v.toPrecision(6)).join(' ')}
        data-y-domain={yd.map((v) => v.toPrecision(6)).join(' ')}
        onPointerDown={onDown}
        onPointerUp={onUp}
        onPointerCancel={() => setDrag(undefined)}
        onPointerMove={onMove}
        onPointerLeave={() => !drag && setHover(undefined)}
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
        {shownTicks?.map((t, i) => (
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
        <rect
          class="bt-axis"
          x={M.left}
          y={M.top}
          width={W - M.left - M.right}
          height={H - M.top - M.bottom}
        />
        <g clip-path={`url(#${clip})`}>
          {lines.map((l, i) => (
            <path key={i} d={pathOf(l.points, sx, sy)} fill="none" stroke={l.color} stroke-width={1.5}>
              {l.name && <title>{l.name}</title>}
            </path>
          ))}
        </g>
        {markers
          ?.filter((m) => m.y >= yd[0] && m.y <= yd[1])
          .map((m) => (
            <g key={m.label} class="bt-marker" data-testid="plot-marker" data-y={m.y}>
              <line x1={M.left} x2={W - M.right} y1={sy(m.y)} y2={sy(m.y)} />
              <text x={W - M.right - 4} y={sy(m.y) - 4} text-anchor="end">
                {m.label}
              </text>
            </g>
          ))}
        {drag && (
          <rect
            class="bt-zoom-box"
            x={Math.min(drag.x0, drag.x1)}
            y={Math.min(drag.y0, drag.y1)}
            width={Math.abs(drag.x1 - drag.x0)}
            height={Math.abs(drag.y1 - drag.y0)}
          />
        )}
        {hover && !drag && (
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
    </div>
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
