/**
 * Giving memory back once a serving process is idle (every source and side table closed): a full garbage
 * collection, after which V8 returns the heap pages it no longer needs. Left to itself V8 keeps a heap grown
 * under load for as long as nothing allocates, which is exactly when the process is idle, so the memory of a
 * load stayed taken after it (81 -> 364 MB, measured). Once per idle period, never on the request path.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance } from 'node:perf_hooks';

type Collect = () => void;
let collect: Collect | undefined;

export function collectGarbage(): void {
  if (collect === undefined) {
    const given = (globalThis as { gc?: Collect }).gc;
    if (given !== undefined) collect = given;
    else {
      // The documented way to reach V8's collector without starting Node with --expose-gc.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    }
  }
  // No argument: Node 20's V8 reads any argument as "young generation only" (an options object included), and a
  // load's leftovers are mostly old by the time the process is quiet, so that freed nothing (measured: 66 MB of
  // dead rows kept). Without one it is a full collection on every Node version; V8 then returns the freed pages.
  collect();
}

/** How often a serving process looks whether it is quiet. */
const QUIET_CHECK_MS = 5_000;
/** Quiet: the event loop busy less than this share of the last check's interval. */
const QUIET_UTILIZATION = 0.01;
/** The heap grown by at least this since the last collection: a load's, given back at the first quiet look. */
const GROWN_BYTES = 64 * 1024 * 1024;
/**
 * How long a serving process stays quiet after a busy spell before it collects a smaller load's garbage. A full
 * collection costs the next load more than that memory is worth for a while: V8 throws away the optimized code that
 * held objects the collection freed (its trace: "marking dependent code for deoptimization, reason: weak objects",
 * some 170 functions of the request path), and compiles it again once requests come. One client's never-asked
 * joins after 25 s quiet cost 1,634, 2,043, 1,160, 1,048, 986 and 731 µs of CPU per answer a second apart, against
 * 650-700 µs before (about 2 s of CPU in all); with no collection in the quiet spell, 772, 745 and 744. A load of a
 * few seconds (one client's joins) grows the heap by about 40 MB. Two minutes, not 30 s: a visitor's or a script's
 * requests often come a minute apart, and at 30 s each of a serving process's busy spells began that slow (each
 * process sees every other connection); the heap of such a light load is held two minutes before it is given back.
 */
const QUIET_SPELL_MS = 120_000;

/**
 * Giving back the memory of a load once the process is quiet again, while its sources stay open: a serving
 * process's heap grew from 43 to 230 MB under 16 clients posting never-asked grid queries (418 kB answers, their
 * rows made into values and written) and stayed there after the load, on every serving process. Checked every
 * few seconds from the event loop's own accounting (nothing on the request path). Most of a load's memory is the C
 * allocator's (answers' buffers, SQLite's results), which keeps what was freed unless asked to give it back: `trim`
 * runs at the first quiet look after a busy spell. A full collection runs then too when the heap grew by
 * `grownBytes` since the last one, and otherwise once the process has been quiet for `quietMs` (a trim after it, for
 * the buffers it freed). Returns the stopper.
 */
export function collectWhenQuiet(
  checkMs = QUIET_CHECK_MS,
  grownBytes = GROWN_BYTES,
  trim?: () => void,
  quietMs = QUIET_SPELL_MS,
): () => void {
  let last = performance.eventLoopUtilization();
  let collectedAt = process.memoryUsage().heapTotal;
  let trimPending = false;
  let collectPending = false;
  let quietFor = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const heap = process.memoryUsage().heapTotal;
    if (heap < collectedAt) collectedAt = heap;
    if (busy >= QUIET_UTILIZATION) {
      trimPending = collectPending = true;
      quietFor = 0;
      return;
    }
    quietFor += checkMs;
    const collecting = heap - collectedAt > grownBytes || (collectPending && quietFor >= quietMs);
    // Before a trim, the collection frees the buffers that unreachable objects still hold, so that their memory
    // is the allocator's to give back (V8 alone collects them at some later time).
    if (collecting) {
      collectGarbage();
      collectedAt = process.memoryUsage().heapTotal;
      collectPending = false;
    }
    if (trim !== undefined && (trimPending || collecting)) {
      trimPending = false;
      trim();
    }
    // This work is not the load's: counted, a collection of a large heap would make the next look busy, and
    // every other look would collect again.
    last = performance.eventLoopUtilization();
  }, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
