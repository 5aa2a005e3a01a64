/**
 * The median every table of the benchmark reports: the middle value, or the mean of the two middle ones for an
 * even count; undefined for none. One rule for every figure, so that figures of different measurements agree on
 * what a median of an even count of runs is.
 */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1]! + sorted[half]!) / 2;
}
