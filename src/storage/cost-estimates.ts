/**
 * What a statement is expected to cost, learnt from its runs: per statement shape (its SQL, whatever the values),
 * a mean that follows the latest runs and forgets old ones, so that one slow run (under contention any statement
 * may have one) moves the estimate only part of the way and the next quick runs bring it back.
 */
import { KeptMap } from '../util/kept-map.js';

/** Weight of the latest run in the estimate: after three quick runs, a slow one counts for a third. */
const LATEST_WEIGHT = 0.3;
const SHAPES_KEPT = 20_000;
/** What a shape never seen is taken to cost before its lane has any measure, in ms. */
const FIRST_GUESS_MS = { ordinary: 5, heavy: 50 };
/** No estimate below this: a queue of thousands of "free" queries is not free. */
const LEAST_MS = 0.2;

export class CostEstimates {
  private readonly byShape = new KeptMap<number>(SHAPES_KEPT);
  /** The lane's mean over all its shapes: the guess for a shape not yet seen. */
  private readonly laneMean = { ...FIRST_GUESS_MS };

  /** Expected milliseconds of one run of `shape` (its lane's mean when never run). */
  estimate(shape: string | undefined, heavy: boolean): number {
    const known = shape === undefined ? undefined : this.byShape.get(shape);
    return Math.max(LEAST_MS, known ?? this.laneMean[heavy ? 'heavy' : 'ordinary']);
  }

  /** Whether `shape` has been measured at all. */
  knows(shape: string): boolean {
    return this.byShape.get(shape) !== undefined;
  }

  /** Take a run of `ms` into the estimate of `shape` and of its lane. */
  record(shape: string | undefined, ms: number, heavy: boolean): void {
    const lane = heavy ? 'heavy' : 'ordinary';
    this.laneMean[lane] = blend(this.laneMean[lane], ms);
    if (shape === undefined) return;
    const before = this.byShape.get(shape);
    this.byShape.set(shape, before === undefined ? ms : blend(before, ms));
  }
}

function blend(before: number, latest: number): number {
  return before + LATEST_WEIGHT * (latest - before);
}
