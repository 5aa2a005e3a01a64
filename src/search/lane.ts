/**
 * The searches' own lane: `running` searches at once, `waiting` more in order, each waiting no longer than its
 * request's deadline; past that bound, or past its deadline, a search is refused with 503 and Retry-After,
 * so that a flood of searches never holds the server's other requests or grows a queue without end.
 */
import { ServerBusyError } from '../storage/types.js';

export interface Turn {
  leave(): void;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

export class SearchLane {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** A turn once one is free, before `deadline` (ms since 1970). */
  async enter(deadline: number): Promise<Turn> {
    if (this.active < this.running) {
      this.active += 1;
      return this.turn();
    }
    if (this.queue.length >= this.waiting) {
      throw new ServerBusyError('too many searches are waiting; search again in a second', 1);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(
          () => {
            this.queue.splice(this.queue.indexOf(waiter), 1);
            reject(new ServerBusyError('the search could not start within the time limit; search again', 2));
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.queue.push(waiter);
    });
    // The turn of the search that left, handed over as it is.
    return this.turn();
  }

  private turn(): Turn {
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        const next = this.queue.shift();
        if (next !== undefined) next.start();
        else this.active -= 1;
      },
    };
  }
}
