/**
 * Work done once however many ask for it while it runs: a key asked again while its making is under way waits
 * for that making instead of starting another (the same posted query from many clients, the same answer's
 * compressed form, the same archive's extraction). Nothing is kept once made; whoever keeps results keeps them
 * elsewhere (KeptOnce in bytes-kept.ts, the machine's kept answers).
 */
export class MadeOnce<V> {
  private readonly running = new Map<string, Promise<V>>();

  /** The making of `key` under way, if any. */
  get(key: string): Promise<V> | undefined {
    return this.running.get(key);
  }

  /** The making of `key` under way, or `make()` started now; forgotten once it settles, fulfilled or not. */
  run(key: string, make: () => Promise<V>): Promise<V> {
    const under = this.running.get(key);
    if (under !== undefined) return under;
    const making = make();
    this.running.set(key, making);
    const done = () => this.running.delete(key);
    making.then(done, done);
    return making;
  }
}
