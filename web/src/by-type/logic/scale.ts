/** Linear scales and "nice" axis ticks for the hand-drawn SVG plots. Pure. */

export function linear(domain: [number, number], range: [number, number]): (v: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** About `count` round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 6): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (lo === hi) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  // The round step nearest to the raw one (thresholds at the geometric means of 1, 2, 5, 10).
  const error = raw / power;
  const step =
    power * (error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.SQRT2 ? 2 : 1);
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** The data range with a margin, so lines do not touch the frame. */
export function padded([lo, hi]: [number, number], fraction = 0.05): [number, number] {
  const span = hi - lo || Math.abs(hi) || 1;
  return [lo - span * fraction, hi + span * fraction];
}

/**
 * A domain scaled by `factor` about its centre (0.5 halves it: zoom in), never wider than `full`: zooming out
 * stops at the whole plot and slides back inside it.
 */
export function zoomed([lo, hi]: [number, number], factor: number, full: [number, number]): [number, number] {
  const span = Math.min((hi - lo) * factor, full[1] - full[0]);
  const centre = (lo + hi) / 2;
  const start = Math.min(Math.max(centre - span / 2, full[0]), full[1] - span);
  return [start, start + span];
}
