/**
 * Exports run in a lane of their own: a few at once, a few more waiting, and the rest refused at once with 503
 * and Retry-After. An export reads many rows and files for a long time; bounded here, many exports wait behind
 * each other instead of taking the connections and the disk from the API's requests. Their statements also run
 * in the storage's heavy lane (src/storage/admission.ts), which never takes every connection. A wait is
 * bounded in time too: past it the export is refused with 503 and Retry-After, as the heavy lane refuses a
 * query that would not start in time, and a client that leaves while waiting gives its place up at once.
 */
import { ServerBusyError } from '../storage/types.js';

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Longest wait for a turn (ms) when the caller gives none. */
export const DEFAULT_LANE_WAIT_MS = 30_000;

export class ExportLane {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly slots: number,
    readonly maxWaiting: number,
    readonly maxWaitMs = DEFAULT_LANE_WAIT_MS,
  ) {}

  /**
   * Waits for a turn (or refuses at once when the queue is full, or when no turn came within `maxWaitMs`); the
   * function given back ends the turn. An aborted `signal` (the client gone) leaves the queue.
   */
  async enter(signal?: AbortSignal): Promise<() => void> {
    if (this.running >= this.slots) {
      if (this.waiting.length >= this.maxWaiting)
        throw new ServerBusyError(
          `${this.running} exports are being written and ${this.waiting.length} wait; ask again in a minute`,
          60,
        );
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          resolve,
          reject,
          timer: setTimeout(
            () =>
              this.drop(
                waiter,
                new ServerBusyError(
                  `no export finished within ${Math.round(this.maxWaitMs / 1000)} s of waiting for a turn; ask again in a minute`,
                  60,
                ),
              ),
            this.maxWaitMs,
          ),
        };
        this.waiting.push(waiter);
        signal?.addEventListener(
          'abort',
          () => this.drop(waiter, new Error('the client left while its export waited for a turn')),
          { once: true },
        );
      });
    } else this.running++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else {
        clearTimeout(next.timer);
        next.resolve();
      }
    };
  }

  private drop(waiter: Waiter, error: Error) {
    const at = this.waiting.indexOf(waiter);
    if (at < 0) return;
    this.waiting.splice(at, 1);
    clearTimeout(waiter.timer);
    waiter.reject(error);
  }

  get state() {
    return { running: this.running, waiting: this.waiting.length };
  }
}
