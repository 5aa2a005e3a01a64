/** Bounded caches shared by the layers (plans, parsed query strings, statement timings, formatters). */

interface Entry<V> {
  key: string;
  value: V;
  /** Read since the clock's hand last passed it. */
  used: boolean;
  /** Its place on the clock. */
  slot: number;
}

/**
 * A bounded map that forgets an entry not read lately (the "clock" approximation of least recently used).
 * A read only marks its entry: moving it to the back of the map at every read, as a strict LRU does, made each
 * request leave the key string it looked up with behind in the map, and the old generation of the heap filled
 * with them (a full collection of several milliseconds every second, the p99 of a page of nodes).
 *
 * The clock is an array of the entries, not the map's own order: a JavaScript Map keeps the places of deleted
 * entries until it is rebuilt, and finding its oldest entry walks over all of them. Evicting that way cost about
 * half the map's capacity in steps (21 µs per never-asked posted query, whose names fill a map of 16,384).
 */
export class KeptMap<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** The entries in their places on the clock (undefined: a place freed by delete). */
  private readonly clock: (Entry<V> | undefined)[] = [];
  private readonly free: number[] = [];
  private hand = 0;

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
    const slot = this.placeFor();
    const added = { key, value, used: false, slot };
    this.clock[slot] = added;
    this.entries.set(key, added);
    return value;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.clock[entry.slot] = undefined;
    this.free.push(entry.slot);
  }

  get size(): number {
    return this.entries.size;
  }

  /** A free place, a new one below the capacity, or that of the evicted entry. */
  private placeFor(): number {
    const freed = this.free.pop();
    if (freed !== undefined) return freed;
    if (this.clock.length < Math.max(1, this.capacity)) return this.clock.push(undefined) - 1;
    return this.evictOne();
  }

  /** Forget the next entry not read since the hand last passed it; those read get another round. */
  private evictOne(): number {
    for (;;) {
      const slot = this.hand;
      this.hand = (slot + 1) % this.clock.length;
      const entry = this.clock[slot]!;
      if (entry.used) {
        entry.used = false;
        continue;
      }
      this.entries.delete(entry.key);
      return slot;
    }
  }
}
