/**
 * A serving process gives the heap a load grew back once it is quiet: left to itself V8 keeps it for as long as
 * nothing allocates (measured: 43 -> 230 MB per serving process after never-asked grid queries, for good), and
 * glibc keeps what was freed in its heap unless asked (100-110 MB after a benchmark's load, against 60 idle).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { collectGarbage, collectWhenQuiet } from '../src/util/idle-memory.js';
import { MEMORY_TRIM_EXTENSION, trimHeap } from '../src/storage/sqlite-extensions.js';
import { anonymousBytes } from './support/process-memory.js';

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

  it('trims at the first quiet look after a busy spell, collects and trims again once quiet for a while, not in a loop', async () => {
    const forced = forcedCollections();
    const trims: { at: number; heapUsed: number }[] = [];
    // Looks every 200 ms; a light load's garbage waits for 1.2 s of quiet.
    const stop = collectWhenQuiet(
      200,
      1024 * MB,
      () => trims.push({ at: Date.now(), heapUsed: process.memoryUsage().heapUsed }),
      1_200,
    );
    try {
      // Whatever ran before this test may count as a busy spell: its looks come first.
      await new Promise((r) => setTimeout(r, 2_000));
      trims.length = 0;
      const collectionsBefore = forced.count();
      // A busy spell: the event loop held for most of a check's interval, leaving garbage.
      let peak = 0;
      const until = Date.now() + 300;
      while (Date.now() < until) {
        leaveGarbage();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      const busyEnded = Date.now();
      // The look that saw the busy spell came at most 200 ms after it ended: a trim at the next quiet look, without
      // a collection (the optimized code stays); six quiet looks later, the collection, and a trim after it.
      await new Promise((r) => setTimeout(r, 800));
      expect(trims.length, 'trimmed at the first quiet look').toBeGreaterThanOrEqual(1);
      expect(forced.count(), 'no collection before the quiet spell').toBe(collectionsBefore);
      const deadline = Date.now() + 10_000;
      const collected = () => trims.slice(1).find((t) => t.heapUsed < peak / 2);
      while (collected() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(collected()?.at ?? 0, 'collected only after the quiet spell').toBeGreaterThanOrEqual(
        busyEnded + 1_000,
      );
      // Counted by an observer, told after the collection's callback has returned.
      await new Promise((r) => setTimeout(r, 100));
      expect(forced.count(), 'one collection').toBe(collectionsBefore + 1);
      // Quiet for ten looks: its own collection and trim do not count as work (else every other look would
      // collect and trim again). A look the machine's noise made busy may add a spell.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(trims.length, 'not again and again while quiet').toBeLessThanOrEqual(4);
    } finally {
      stop();
      forced.stop();
    }
  });
});

describe.skipIf(MEMORY_TRIM_EXTENSION === undefined)('the heap trimmed (native/memory-trim.c)', () => {
  it('gives freed memory back to the system', async () => {
    // Buffers of 20 kB come from the C heap; a small one kept after every few holds its top, as a load's do.
    let buffers: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      buffers.push(Buffer.allocUnsafeSlow(20_000).fill(1));
      if (i % 3 === 0) buffers.push(Buffer.allocUnsafeSlow(300).fill(1));
    }
    buffers = buffers.filter((b) => b.length === 300);
    collectGarbage();
    const before = anonymousBytes();
    // V8 frees the collected buffers' memory on a thread of its own, after the collection (on a slow machine, part
    // of it only after a first trim): trimmed again until it has, for 2 s at most.
    let given = 0;
    for (let tries = 0; tries < 40 && given <= 30 * MB; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(trimHeap()).toBe(true);
      given = before - anonymousBytes();
    }
    expect(given).toBeGreaterThan(30 * MB);
    expect(buffers).toHaveLength(1000);
  });
});
