/**
 * Measurements taken again when the host stole much of the machine's CPU meanwhile. On this kind of shared
 * virtual machine one measurement in several loses a fifth to two fifths of the CPU to other guests, and such a
 * row says more about the host than about the server; the least disturbed of a few tries is kept instead.
 */

/** What a retried measurement must tell: the share of CPU time the host took during it, in %. */
export interface Disturbable {
  stealPct: number;
}

export interface SteadyOptions {
  /** A measurement with more stolen than this (in %) is taken again. */
  stealLimit: number;
  /** At most this many measurements in all. */
  tries: number;
}

/**
 * `measure()` until one has at most `stealLimit` % stolen, `tries` times at most; the least disturbed one,
 * with how many were taken.
 */
export async function steadily<M extends Disturbable>(
  measure: () => Promise<M>,
  { stealLimit, tries }: SteadyOptions,
): Promise<M & { tries: number }> {
  let best = await measure();
  let taken = 1;
  while (best.stealPct > stealLimit && taken < tries) {
    const next = await measure();
    taken += 1;
    if (next.stealPct < best.stealPct) best = next;
  }
  return { ...best, tries: taken };
}
