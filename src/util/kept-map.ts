/** Bounded caches shared by the layers (plans, parsed query strings, statement timings, formatters). */

interface Entry<V> {
  value: V;
  /** Read since it was last passed over for eviction. */
  used: boolean;
}

/**
 * A bounded map that forgets an entry not read lately (the "clock" approximation of least recently used).
 * A read only marks its entry: moving it to the back of the map at every read, as a strict LRU does, made each
 * request leave the key string it looked up with behind in the map, and the old generation of the heap filled
 * with them (a full collection of several milliseconds every second, the p99 of a page of nodes).
 */
export class KeptMap<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  set(key: string, value: V): V {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      entry.value = value;
      return value;
    }
    if (this.entries.size >= this.capacity) this.evictOne();
    this.entries.set(key, { value, used: false });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Forget the oldest entry not read since it was last passed over; those read get another round. */
  private evictOne(): void {
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(key, entry);
    }
  }
}
