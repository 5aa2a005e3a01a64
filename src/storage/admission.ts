/**
 * Admission of queries to a storage's connections (SQLite query processes, PostgreSQL sessions). Two lanes:
 * the heavy one (clients' own QueryBuilder queries, and statements expected to run long) may never take every
 * connection, so that ordinary requests keep answering while heavy ones run; a freed connection goes to an
 * ordinary query first. In the heavy lane, clients take turns: one client's flood of queries waits behind
 * itself, not in front of another client's one query.
 *
 * In the heavy lane, waiting is bounded by time, not by count: a query waits while the work ahead of it (the
 * expected cost of what runs and what is queued before it, see cost-estimates.ts) still lets it start within
 * its request's deadline, and is refused at once (503 with Retry-After) when it would not, rather than waiting
 * only to be stopped at the limit. Ordinary queries are quick by definition: they wait until their deadline,
 * and only a queue past `maxWaiting` (a bound on memory) refuses more. An estimate of their wait would follow
 * the serving thread's own lag under a burst of hundreds of them, and refuse queries that would have run.
 */
import { QueryTimeoutError, ServerBusyError } from './types.js';

export interface AdmissionOptions {
  /** Connections: queries running at once. */
  slots: number;
  /** Ordinary queries that may wait at most, whatever their cost: a bound on memory, not on time. */
  maxWaiting: number;
}

/** One query asking for a connection; the same object is given back to leave(). */
export interface Ticket {
  heavy: boolean;
  /** Who asks (an address): heavy queries are taken in turn by client. */
  client: string;
  /** Expected milliseconds of its run. */
  cost: number;
  /** The client's own query (a posted QueryBuilder dictionary), not an API statement seen to run long. */
  posted: boolean;
}

interface Waiter {
  ticket: Ticket;
  resolve: () => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Heavy waiters of one client, served in order. */
interface ClientQueue {
  waiters: Waiter[];
  /** Sum of their costs. */
  work: number;
}

/** Longest Retry-After given, in seconds. */
const RETRY_MAX_S = 30;

export class Admission {
  readonly slots: number;
  /** Connections the heavy lane may hold at once: all but one (one, when there is only one). */
  readonly heavySlots: number;
  private readonly maxWaiting: number;
  private readonly running = new Map<Ticket, number>();
  private heavyRunning = 0;
  private readonly ordinary: Waiter[] = [];
  private ordinaryWork = 0;
  /** Clients with heavy queries waiting, in the order of their next turn. */
  private readonly heavy = new Map<string, ClientQueue>();
  private heavyWaiting = 0;
  private postedWaiting = 0;

  constructor({ slots, maxWaiting }: AdmissionOptions) {
    this.slots = Math.max(1, slots);
    this.heavySlots = Math.max(1, this.slots - 1);
    this.maxWaiting = maxWaiting;
  }

  /** Queries running and waiting, per lane (for tests and monitoring). */
  get state() {
    return {
      running: this.running.size,
      heavyRunning: this.heavyRunning,
      waiting: this.ordinary.length,
      heavyWaiting: this.heavyWaiting,
    };
  }

  /**
   * Take a connection now when one is free for this lane and nobody of the lane waits (the common case: no
   * promise, no timer). Returns false when the query must wait().
   */
  tryEnter(ticket: Ticket): boolean {
    const queued = ticket.heavy ? this.heavyWaiting : this.ordinary.length;
    if (queued > 0 || !this.free(ticket.heavy)) return false;
    this.take(ticket);
    return true;
  }

  /**
   * Wait for a connection of the ticket's lane until `deadline` (ms since the epoch); a heavy query is refused
   * at once when the expected wait would pass it, an ordinary one when `maxWaiting` wait already. A heavy
   * query's own cost is not counted: it is only known by shape (the same SQL with other values can cost
   * nothing), and a query that would have run is worse refused than stopped.
   */
  wait(ticket: Ticket, deadline: number, limitSeconds: number): Promise<void> {
    const ahead = this.expectedWait(ticket);
    const left = deadline - Date.now();
    const refused = ticket.heavy ? ahead > left : this.ordinary.length >= this.maxWaiting;
    if (refused) {
      return Promise.reject(this.busy(ticket, ahead, left));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { ticket, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.remove(waiter);
        reject(
          new QueryTimeoutError(
            `the server was busy with other queries for the whole time limit of ${limitSeconds} s; try again shortly`,
          ),
        );
      }, left);
      this.enqueue(waiter);
    });
  }

  /** Give the connection back; the next waiting query that may run takes it. */
  leave(ticket: Ticket) {
    if (!this.running.delete(ticket)) return;
    if (ticket.heavy) this.heavyRunning--;
    const waiter =
      this.ordinary.length > 0 ? this.ordinary[0] : this.free(true) ? this.nextHeavy() : undefined;
    if (!waiter) return;
    this.remove(waiter);
    clearTimeout(waiter.timer);
    this.take(waiter.ticket);
    waiter.resolve();
  }

  /** Refuse every waiting query (the storage is closing). */
  drain(error: Error) {
    const all = [...this.ordinary, ...[...this.heavy.values()].flatMap((q) => q.waiters)];
    for (const waiter of all) {
      this.remove(waiter);
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  /**
   * Milliseconds before the ticket would start: what the running queries have left, and the queued work that
   * goes first, shared by the connections of the lane. Ordinary queries go before heavy ones; in the heavy
   * lane, each other client gets one turn for each of this client's queries already waiting, and one more.
   */
  expectedWait(ticket: Ticket): number {
    const now = performance.now();
    let soonest = Infinity;
    let heavyLeft = 0;
    for (const [running, started] of this.running) {
      const left = Math.max(0, running.cost - (now - started));
      soonest = Math.min(soonest, left);
      if (running.heavy) heavyLeft += left;
    }
    const firstFree = this.running.size < this.slots ? 0 : soonest;
    if (!ticket.heavy) return firstFree + this.ordinaryWork / this.slots;
    const own = this.heavy.get(ticket.client);
    const turns = (own?.waiters.length ?? 0) + 1;
    let queued = own?.work ?? 0;
    for (const [client, queue] of this.heavy) {
      if (client === ticket.client) continue;
      if (queue.waiters.length <= turns) queued += queue.work;
      else for (let i = 0; i < turns; i++) queued += queue.waiters[i]!.ticket.cost;
    }
    const heavyFree = this.heavyRunning < this.heavySlots ? 0 : heavyLeft / this.heavySlots;
    return Math.max(firstFree, heavyFree) + (queued + this.ordinaryWork) / this.heavySlots;
  }

  /** The refusal: what is busy, how much work is ahead, and when to come back. */
  private busy(ticket: Ticket, ahead: number, left: number): ServerBusyError {
    const retryAfter = Math.max(1, Math.min(RETRY_MAX_S, Math.ceil(ahead / 1000)));
    const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
    if (!ticket.heavy) {
      return new ServerBusyError(
        `this server is busy: ${this.ordinary.length} queries wait for it already, about ${seconds(ahead)} of ` +
          `work; try again in ${retryAfter} s`,
        retryAfter,
      );
    }
    const tail = `more than the ${seconds(left)} left to this request; try again in ${retryAfter} s`;
    const others = this.heavyWaiting - this.postedWaiting;
    const what = [
      ...(this.postedWaiting > 0 ? [`${this.postedWaiting} posted QueryBuilder queries`] : []),
      ...(others > 0 ? [`${others} long-running listings`] : []),
    ];
    const queue = what.length === 0 ? `${this.heavyRunning} running` : `${what.join(' and ')} waiting`;
    return new ServerBusyError(
      `this server's lane for long queries is busy (${queue}): this ${ticket.posted ? 'query' : 'request'} ` +
        `would start in about ${seconds(ahead)}, ${tail}` +
        (ticket.posted ? ', or make the query lighter (filters, a limit)' : ''),
      retryAfter,
    );
  }

  private enqueue(waiter: Waiter) {
    const { ticket } = waiter;
    if (!ticket.heavy) {
      this.ordinary.push(waiter);
      this.ordinaryWork += ticket.cost;
      return;
    }
    let queue = this.heavy.get(ticket.client);
    if (!queue) this.heavy.set(ticket.client, (queue = { waiters: [], work: 0 }));
    queue.waiters.push(waiter);
    queue.work += ticket.cost;
    this.heavyWaiting++;
    if (ticket.posted) this.postedWaiting++;
  }

  /** The first waiter of the client whose turn it is; that client goes to the back of the turns. */
  private nextHeavy(): Waiter | undefined {
    for (const [client, queue] of this.heavy) {
      this.heavy.delete(client);
      this.heavy.set(client, queue);
      return queue.waiters[0];
    }
    return undefined;
  }

  private remove(waiter: Waiter) {
    const { ticket } = waiter;
    if (!ticket.heavy) {
      const at = this.ordinary.indexOf(waiter);
      if (at === -1) return;
      this.ordinary.splice(at, 1);
      this.ordinaryWork = this.ordinary.length === 0 ? 0 : this.ordinaryWork - ticket.cost;
      return;
    }
    const queue = this.heavy.get(ticket.client);
    const at = queue?.waiters.indexOf(waiter) ?? -1;
    if (!queue || at === -1) return;
    queue.waiters.splice(at, 1);
    queue.work -= ticket.cost;
    if (queue.waiters.length === 0) this.heavy.delete(ticket.client);
    this.heavyWaiting--;
    if (ticket.posted) this.postedWaiting--;
  }

  private free(heavy: boolean): boolean {
    return this.running.size < this.slots && (!heavy || this.heavyRunning < this.heavySlots);
  }

  private take(ticket: Ticket) {
    this.running.set(ticket, performance.now());
    if (ticket.heavy) this.heavyRunning++;
  }
}
