/**
 * A serving process gives the heap a load grew back once it is quiet: left to itself V8 keeps it for as long as
 * nothing allocates (measured: 43 -> 230 MB per serving process after never-asked grid queries, for good).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { collectWhenQuiet } from '../src/util/idle-memory.js';

/**
 * Full collections the process was asked for (V8 makes others on its own, when it allocates). A forced collection
 * of the young generation alone does not count: it frees nothing of a load's rows, old by then.
 */
function forcedCollections(): { count(): number; stop(): void } {
  let forced = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      detail?: { kind?: number; flags?: number };
    })[])
      if (
        entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR &&
        ((entry.detail.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0
      )
        forced++;
  });
  observer.observe({ entryTypes: ['gc'] });
  return { count: () => forced, stop: () => observer.disconnect() };
}

const MB = 1024 * 1024;

/** A load's leftovers: values that were an answer's rows, unreachable once this returns. Their count. */
function leaveGarbage(): number {
  const rows = Array.from({ length: 800_000 }, (_, i) => ({ id: i, label: `node ${i}` }));
  return rows.length;
}

describe('memory given back when quiet', () => {
  it('collects once the event loop is quiet and the heap has grown, and not again while nothing grows', async () => {
    const forced = forcedCollections();
    const stop = collectWhenQuiet(200, 16 * MB);
    try {
      const base = process.memoryUsage();
      expect(leaveGarbage()).toBe(800_000);
      const grown = process.memoryUsage();
      expect(grown.heapTotal - base.heapTotal, 'the rows grew the heap').toBeGreaterThan(32 * MB);
      const deadline = Date.now() + 10_000;
      while (forced.count() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(forced.count(), 'a collection ran once quiet').toBe(1);
      // The rows are gone from the heap (how many of its pages V8 returns to the system is its own choice).
      const after = process.memoryUsage();
      expect(after.heapUsed).toBeLessThan(base.heapUsed + (grown.heapUsed - base.heapUsed) / 2);
      // Quiet and no longer grown: no collection more.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(forced.count()).toBe(1);
    } finally {
      stop();
      forced.stop();
    }
  });
});
