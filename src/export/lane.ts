/**
 * Exports run in a lane of their own: a few at once, a few more waiting, and the rest refused at once with 503
 * and Retry-After. An export reads many rows and files for a long time; bounded here, many exports wait behind
 * each other instead of taking the connections and the disk from the API's requests. Their statements also run
 * in the storage's heavy lane (src/storage/admission.ts), which never takes every connection.
 */
import { ServerBusyError } from '../storage/types.js';

export class ExportLane {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly slots: number,
    readonly maxWaiting: number,
  ) {}

  /** Waits for a turn (or refuses at once when the queue is full); the function given back ends the turn. */
  async enter(): Promise<() => void> {
    if (this.running >= this.slots) {
      if (this.waiting.length >= this.maxWaiting)
        throw new ServerBusyError(
          `${this.running} exports are being written and ${this.waiting.length} wait; ask again in a minute`,
          60,
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    };
  }

  get state() {
    return { running: this.running, waiting: this.waiting.length };
  }
}
