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
/** The heap grown by at least this since the last collection: worth giving back. */
const GROWN_BYTES = 32 * 1024 * 1024;

/**
 * Giving back the memory of a load once the process is quiet again, while its sources stay open: a serving
 * process's heap grew from 43 to 230 MB under 16 clients posting never-asked grid queries (418 kB answers, their
 * rows made into values and written) and stayed there after the load, on every serving process. Checked every
 * few seconds from the event loop's own accounting (nothing on the request path); a collection runs only after
 * an interval with the loop next to idle and the heap grown since the last one. `trim` then runs once per quiet
 * spell after a busy one: most of a load's memory is the C allocator's (answers' buffers, SQLite's results), which
 * keeps what was freed unless asked to give it back. Returns the stopper.
 */
export function collectWhenQuiet(
  checkMs = QUIET_CHECK_MS,
  grownBytes = GROWN_BYTES,
  trim?: () => void,
): () => void {
  let last = performance.eventLoopUtilization();
  let collectedAt = process.memoryUsage().heapTotal;
  let busySinceTrim = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const heap = process.memoryUsage().heapTotal;
    if (heap < collectedAt) collectedAt = heap;
    if (busy >= QUIET_UTILIZATION) {
      busySinceTrim = true;
      return;
    }
    const trimming = trim !== undefined && busySinceTrim;
    // Before a trim, the collection frees the buffers that unreachable objects still hold, so that their memory
    // is the allocator's to give back (V8 alone collects them at some later time, and the trim would be early).
    if (trimming || heap - collectedAt > grownBytes) {
      collectGarbage();
      collectedAt = process.memoryUsage().heapTotal;
    }
    if (trimming) {
      busySinceTrim = false;
      trim();
    }
    // This work is not the load's: counted, a collection of a large heap would make the next look busy, and
    // every other look would collect again.
    last = performance.eventLoopUtilization();
  }, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
