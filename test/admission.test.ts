/**
 * The admission of queries, by itself: waits bounded by time (the expected work ahead against the deadline),
 * ordinary queries first, clients taking turns in the heavy lane, and cost estimates that forget a slow run.
 */
import { describe, expect, it } from 'vitest';
import { Admission, type Ticket } from '../src/storage/admission.js';
import { CostEstimates } from '../src/storage/cost-estimates.js';
import { QueryTimeoutError, ServerBusyError } from '../src/storage/types.js';

const ticket = (over: Partial<Ticket> = {}): Ticket => ({
  heavy: true,
  posted: true,
  client: 'a',
  cost: 100,
  ...over,
});

/** Queue `t` and note its name in `order` once it is admitted (or its refusal). */
function queue(admission: Admission, t: Ticket, name: string, order: string[], deadlineMs = 30_000) {
  if (admission.tryEnter(t)) {
    order.push(name);
    return Promise.resolve('now');
  }
  return admission.wait(t, Date.now() + deadlineMs, deadlineMs / 1000).then(
    () => (order.push(name), 'admitted'),
    (error: Error) => (error instanceof ServerBusyError ? `busy: ${error.message}` : error.name),
  );
}

describe('admission by time', () => {
  it('lets a queue far longer than any count bound wait when its work fits the deadline', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 256 });
    const order: string[] = [];
    const tickets = Array.from({ length: 64 }, () => ticket({ cost: 10 }));
    const outcomes = tickets.map((t, i) => queue(admission, t, `q${i}`, order));
    // One heavy query runs (the heavy lane leaves one connection to ordinary queries), 63 wait.
    expect(admission.state).toEqual({ running: 1, heavyRunning: 1, waiting: 0, heavyWaiting: 63 });
    for (const t of tickets) admission.leave(t);
    expect(await Promise.all(outcomes)).toEqual(['now', ...Array(63).fill('admitted')]);
    expect(order).toEqual(tickets.map((_, i) => `q${i}`));
  });

  it('refuses at once, with Retry-After and what is busy, only the query whose wait would pass its deadline', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 256 });
    const order: string[] = [];
    const first = ticket({ cost: 100 });
    expect(admission.tryEnter(first)).toBe(true);
    // 850 ms left: 100 ms running plus n × 100 ms queued fit for the first eight waiters.
    const waits = Array.from({ length: 10 }, (_, i) => queue(admission, ticket(), `q${i}`, order, 850));
    // A GET's statement seen to run long is told it waits behind long-running queries, not "QueryBuilder".
    const listing = queue(admission, ticket({ posted: false, client: 'a' }), 'listing', order, 850);
    const refusedNow = await Promise.race([
      Promise.all([waits[8], waits[9], listing]),
      new Promise((r) => setTimeout(() => r('waited'), 50)),
    ]);
    expect(refusedNow).not.toBe('waited');
    const [ninth, tenth, get] = refusedNow as string[];
    expect(ninth).toMatch(
      /^busy: this server's lane for long queries is busy \(8 posted QueryBuilder queries waiting\)/,
    );
    expect(ninth).toMatch(/make the query lighter/);
    expect(tenth).toMatch(/^busy: /);
    expect(get).toMatch(/^busy: .*long queries is busy .*this request would start/);
    expect(get).not.toMatch(/lighter/);
    expect(admission.state.heavyWaiting).toBe(8);
    let t = first;
    const admitted = waits.slice(0, 8);
    for (let i = 0; i < 8; i++) {
      admission.leave(t);
      t = (admission as unknown as { running: Map<Ticket, number> }).running.keys().next().value as Ticket;
    }
    admission.leave(t);
    expect(await Promise.all(admitted)).toEqual(Array(8).fill('admitted'));
  });

  it('lets ordinary queries wait until their deadline, refusing only past the bound on their number', async () => {
    const admission = new Admission({ slots: 1, maxWaiting: 2 });
    const order: string[] = [];
    const running = ticket({ heavy: false, posted: false, cost: 5_000 });
    expect(admission.tryEnter(running)).toBe(true);
    // Far more work ahead than their 1 s: they wait all the same (an estimate is no reason to refuse them).
    const quick = () => ticket({ heavy: false, posted: false, cost: 5 });
    const waits = [quick(), quick()].map((t, i) => queue(admission, t, `o${i}`, order, 1_000));
    const third = await queue(admission, quick(), 'o2', order, 1_000);
    expect(third).toMatch(/^busy: this server is busy: 2 queries wait for it already/);
    admission.leave(running);
    expect(await waits[0]).toBe('admitted');
    expect(admission.state.waiting).toBe(1);
    admission.drain(new Error('closing'));
    expect(await waits[1]).toBe('Error');
  });

  it('gives the refused a Retry-After that grows with the work ahead', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 256 });
    expect(admission.tryEnter(ticket({ cost: 5_000 }))).toBe(true);
    const refusal = await admission
      .wait(ticket({ cost: 5_000 }), Date.now() + 2_000, 2)
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ServerBusyError);
    expect((refusal as ServerBusyError).retryAfter).toBe(5);
  });

  it('gives a freed connection to an ordinary query first, and never the last connection to a heavy one', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 256 });
    const order: string[] = [];
    const heavyRunning = ticket();
    const ordinaryRunning = ticket({ heavy: false, posted: false, cost: 5 });
    expect(admission.tryEnter(heavyRunning)).toBe(true);
    expect(admission.tryEnter(ordinaryRunning)).toBe(true);
    const heavyTicket = ticket();
    const heavy = queue(admission, heavyTicket, 'heavy', order);
    const ordinaryTicket = ticket({ heavy: false, posted: false, cost: 5 });
    const ordinary = queue(admission, ordinaryTicket, 'ordinary', order);
    admission.leave(heavyRunning);
    await ordinary;
    expect(order).toEqual(['ordinary']);
    // Both connections busy with ordinary queries now, then one of them free: the heavy one may take it.
    admission.leave(ordinaryRunning);
    await heavy;
    expect(order).toEqual(['ordinary', 'heavy']);
    admission.leave(ordinaryTicket);
    // A heavy query holds one connection: another heavy one waits even though a connection is free.
    expect(admission.tryEnter(ticket())).toBe(false);
    expect(admission.tryEnter(ticket({ heavy: false, posted: false }))).toBe(true);
  });

  it('takes heavy queries in turn by client: one query of a second client waits behind one of the first', async () => {
    const admission = new Admission({ slots: 2, maxWaiting: 256 });
    const order: string[] = [];
    const flood = Array.from({ length: 64 }, () => ticket({ client: 'flood', cost: 50 }));
    const floodWaits = flood.map((t, i) => queue(admission, t, `flood${i}`, order));
    const lone = ticket({ client: 'lone', cost: 50 });
    // Its expected wait counts the running query and one turn of the flood's, not all 63 queued.
    expect(admission.expectedWait(lone)).toBeLessThanOrEqual(2 * 50 + 1);
    const loneWait = queue(admission, lone, 'lone', order);
    admission.leave(flood[0]!);
    admission.leave(flood[1]!);
    await loneWait;
    expect(order.slice(0, 3)).toEqual(['flood0', 'flood1', 'lone']);
    admission.leave(lone);
    for (const t of flood.slice(2)) admission.leave(t);
    expect((await Promise.all(floodWaits)).filter((o) => o !== 'admitted' && o !== 'now')).toEqual([]);
  });

  it('answers a waiter left waiting past its deadline with a time-out and forgets it', async () => {
    const admission = new Admission({ slots: 1, maxWaiting: 256 });
    const running = ticket({ cost: 1 });
    expect(admission.tryEnter(running)).toBe(true);
    const late = admission.wait(ticket({ cost: 1 }), Date.now() + 30, 1).catch((error: unknown) => error);
    expect(await late).toBeInstanceOf(QueryTimeoutError);
    expect(admission.state.heavyWaiting).toBe(0);
    admission.leave(running);
    expect(admission.state.running).toBe(0);
  });

  it('refuses every waiter when drained', async () => {
    const admission = new Admission({ slots: 1, maxWaiting: 256 });
    expect(admission.tryEnter(ticket())).toBe(true);
    const waits = [ticket(), ticket({ heavy: false, posted: false })].map((t) =>
      admission.wait(t, Date.now() + 10_000, 10).catch((error: Error) => error.message),
    );
    admission.drain(new Error('closing'));
    expect(await Promise.all(waits)).toEqual(['closing', 'closing']);
    expect(admission.state).toMatchObject({ waiting: 0, heavyWaiting: 0 });
  });
});

describe('cost estimates', () => {
  it('keeps one slow run from marking a statement heavy, follows runs that stay slow, and comes back down', () => {
    const costs = new CostEstimates();
    for (let i = 0; i < 5; i++) costs.record('tree', 5, false);
    costs.record('tree', 600, false);
    // One run of 600 ms among runs of 5 ms: the estimate moves part of the way, below the heavy mark of 250.
    expect(costs.estimate('tree', false)).toBeLessThan(250);
    costs.record('tree', 600, false);
    costs.record('tree', 600, false);
    expect(costs.estimate('tree', false)).toBeGreaterThan(250);
    for (let i = 0; i < 3; i++) costs.record('tree', 5, false);
    expect(costs.estimate('tree', false)).toBeLessThan(250);
  });

  it('guesses a shape never run from its lane, and never guesses nothing', () => {
    const costs = new CostEstimates();
    expect(costs.estimate('new', true)).toBeGreaterThan(costs.estimate('new', false));
    for (let i = 0; i < 20; i++) costs.record(`posted${i}`, 400, true);
    expect(costs.estimate('another', true)).toBeGreaterThan(300);
    costs.record('free', 0, false);
    expect(costs.estimate('free', false)).toBeGreaterThan(0);
  });
});
