/**
 * A band structure as the plot draws it, from BandsData's `json` download (also its `bands` derived property):
 * one polyline per band and path segment, and the high-symmetry labels at their positions. Pure.
 */

export interface BandsPath {
  length?: number;
  from: string;
  to: string;
  /** values[band][point], aligned with x. */
  values: number[][];
  x: number[];
  two_band_types?: boolean;
}

export interface BandsJson {
  label?: string;
  path?: string[][];
  paths: BandsPath[];
}

export interface Tick {
  x: number;
  label: string;
}

export interface BandsPlot {
  /** One line per (path, band); `second` marks the other spin channel when the data has two band types. */
  lines: Array<{ band: number; second: boolean; points: Array<[number, number]> }>;
  ticks: Tick[];
  /** Bands per band type (a spin-polarised calculation has this many in each of its two types). */
  bandCount: number;
  twoTypes: boolean;
  x: [number, number];
  y: [number, number];
}

export function isBandsJson(value: unknown): value is BandsJson {
  const v = value as BandsJson;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.paths) &&
    v.paths.every((p) => Array.isArray(p?.x) && Array.isArray(p?.values))
  );
}

/**
 * The labels along the x axis: each path's start and end; where a path ends with a label different from the
 * next one's start at the same position (a discontinuity), the two read "X|K", as AiiDA's own plots write them.
 */
export function bandTicks(paths: BandsPath[]): Tick[] {
  const ticks: Tick[] = [];
  const push = (x: number | undefined, label: string) => {
    if (x === undefined || !Number.isFinite(x)) return;
    const last = ticks[ticks.length - 1];
    if (last && Math.abs(last.x - x) < 1e-9) {
      if (last.label !== label) last.label = `${last.label}|${label}`;
    } else {
      ticks.push({ x, label });
    }
  };
  for (const p of paths) {
    push(p.x[0], p.from);
    push(p.x[p.x.length - 1], p.to);
  }
  return ticks;
}

/** Greek letters AiiDA writes as names (GAMMA, G) shown as the symbol people read. */
export function displayLabel(label: string): string {
  return label
    .split('|')
    .map((l) => (l === 'G' || l.toUpperCase() === 'GAMMA' ? 'Γ' : l))
    .join('|');
}

export function bandsPlot(json: BandsJson): BandsPlot {
  const lines: BandsPlot['lines'] = [];
  let [xmin, xmax, ymin, ymax] = [Infinity, -Infinity, Infinity, -Infinity];
  let bandCount = 0;
  let twoTypes = false;
  for (const p of json.paths) {
    const half = p.two_band_types ? Math.floor(p.values.length / 2) : p.values.length;
    bandCount = Math.max(bandCount, half);
    twoTypes ||= Boolean(p.two_band_types);
    p.values.forEach((band, b) => {
      const points: Array<[number, number]> = [];
      band.forEach((y, i) => {
        const x = p.x[i];
        if (x === undefined || typeof y !== 'number' || !Number.isFinite(y)) return;
        points.push([x, y]);
        [xmin, xmax, ymin, ymax] = [
          Math.min(xmin, x),
          Math.max(xmax, x),
          Math.min(ymin, y),
          Math.max(ymax, y),
        ];
      });
      if (points.length) lines.push({ band: b, second: b >= half, points });
    });
  }
  if (!lines.length) return { lines, ticks: [], bandCount: 0, twoTypes, x: [0, 1], y: [0, 1] };
  return { lines, ticks: bandTicks(json.paths), bandCount, twoTypes, x: [xmin, xmax], y: [ymin, ymax] };
}
