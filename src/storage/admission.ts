/**
 * Admission of queries to a storage's connections (SQLite query processes, PostgreSQL sessions). Two lanes:
 * the heavy one (clients' own QueryBuilder queries, and statements seen to run long) may never take every
 * connection, so that ordinary requests keep answering while heavy ones run; a freed connection goes to an
 * ordinary query first. Waiting is bounded twice: by the request's deadline, and by the number waiting in each
 * lane, past which a query is refused at once with Retry-After instead of joining a queue that only grows.
 */
import { QueryTimeoutError, ServerBusyError } from './types.js';

export interface AdmissionOptions {
  /** Connections: queries running at once. */
  slots: number;
  /** Ordinary queries that may wait for a connection before more are refused. */
  maxWaiting: number;
}

interface Waiter {
  heavy: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Heavy queries waiting, per connection they may take: beyond this, their wait exceeds any sensible limit. */
const HEAVY_WAITING_PER_SLOT = 4;

export class Admission {
  readonly slots: number;
  /** Connections the heavy lane may hold at once: all but one (one, when there is only one). */
  readonly heavySlots: number;
  private readonly maxWaiting: number;
  private readonly maxHeavyWaiting: number;
  private running = 0;
  private heavyRunning = 0;
  private readonly ordinary: Waiter[] = [];
  private readonly heavy: Waiter[] = [];

  constructor({ slots, maxWaiting }: AdmissionOptions) {
    this.slots = Math.max(1, slots);
    this.heavySlots = Math.max(1, this.slots - 1);
    this.maxWaiting = maxWaiting;
    this.maxHeavyWaiting = this.heavySlots * HEAVY_WAITING_PER_SLOT;
  }

  /** Queries running and waiting, per lane (for tests and monitoring). */
  get state() {
    return {
      running: this.running,
      heavyRunning: this.heavyRunning,
      waiting: this.ordinary.length,
      heavyWaiting: this.heavy.length,
    };
  }

  /**
   * Take a connection now when one is free for this lane (the common case: no promise, no timer). Returns
   * false when the query must wait().
   */
  tryEnter(heavy: boolean): boolean {
    if (!this.free(heavy) || (heavy ? this.heavy : this.ordinary).length > 0) return false;
    this.take(heavy);
    return true;
  }

  /** Wait for a connection of this lane, until `deadline` (ms since the epoch) at the latest. */
  wait(heavy: boolean, deadline: number, limitSeconds: number): Promise<void> {
    const queue = heavy ? this.heavy : this.ordinary;
    if (queue.length >= (heavy ? this.maxHeavyWaiting : this.maxWaiting)) {
      return Promise.reject(
        new ServerBusyError(
          heavy
            ? `${queue.length} QueryBuilder queries are already waiting for this server; try again shortly, or make the query lighter (filters, a limit)`
            : `${queue.length} queries are already waiting for this server; try again shortly`,
          Math.max(1, Math.min(30, Math.ceil(limitSeconds / 10))),
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { heavy, resolve, reject };
      waiter.timer = setTimeout(
        () => {
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          reject(
            new QueryTimeoutError(
              `the server was busy with other queries for the whole time limit of ${limitSeconds} s; try again shortly`,
            ),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
      queue.push(waiter);
    });
  }

  /** Give the connection back; the next waiting query of the lane that may run takes it. */
  leave(heavy: boolean) {
    this.running--;
    if (heavy) this.heavyRunning--;
    const next = this.ordinary.length > 0 ? this.ordinary : this.free(true) ? this.heavy : undefined;
    const waiter = next?.shift();
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.take(waiter.heavy);
    waiter.resolve();
  }

  /** Refuse every waiting query (the storage is closing). */
  drain(error: Error) {
    for (const waiter of [...this.ordinary.splice(0), ...this.heavy.splice(0)]) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  private free(heavy: boolean): boolean {
    return this.running < this.slots && (!heavy || this.heavyRunning < this.heavySlots);
  }

  private take(heavy: boolean) {
    this.running++;
    if (heavy) this.heavyRunning++;
  }
}
