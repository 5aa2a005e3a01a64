/**
 * Answers of searches made recently, by what was asked and over which indexes: a search's answer depends only
 * on its request and on the index files it read, and an index file never changes (a replaced or removed
 * source has another file, or none), so an answer kept under both is exact as long as it is kept. Searches
 * repeat (a portal's first page, a facet clicked by many, the links people share), and on a portal of 1,000
 * sources one search reads 1,000 indexes: kept, it costs a lookup. Identical searches arriving while one runs
 * wait for its answer rather than read every index again. Bounded in entries and in characters, the least
 * recently used dropped first.
 */

/** Answers kept at most. */
const MOST_ANSWERS = 512;
/** Characters of answers kept at most (their JSON), about 16 MB of heap. */
const MOST_CHARS = 8_000_000;

interface Kept<T> {
  value: T;
  chars: number;
}

export class AnswerCache<T> {
  private readonly kept = new Map<string, Kept<T>>();
  private readonly running = new Map<string, Promise<T>>();
  private chars = 0;

  constructor(
    private readonly mostAnswers = MOST_ANSWERS,
    private readonly mostChars = MOST_CHARS,
  ) {}

  get size(): number {
    return this.kept.size;
  }

  /**
   * The answer kept under `key`, or the one being made under it, or the one `make` makes (kept when `keep`
   * says so: an answer that left sources out for now is not).
   */
  async answer(key: string, make: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    const found = this.peek(key);
    if (found !== undefined) return found;
    const underway = this.running.get(key);
    if (underway !== undefined) return underway;
    const made = make();
    this.running.set(key, made);
    try {
      const value = await made;
      if (keep(value)) this.put(key, value);
      return value;
    } finally {
      this.running.delete(key);
    }
  }

  /** The answer kept under `key`, if any (without making one). */
  peek(key: string): T | undefined {
    const found = this.kept.get(key);
    if (found === undefined) return undefined;
    this.kept.delete(key);
    this.kept.set(key, found);
    return found.value;
  }

  /** Keeps `value` under `key`, as an answer made. */
  keep(key: string, value: T): void {
    const old = this.kept.get(key);
    if (old !== undefined) {
      this.kept.delete(key);
      this.chars -= old.chars;
    }
    this.put(key, value);
  }

  private put(key: string, value: T) {
    const chars = JSON.stringify(value).length;
    if (chars > this.mostChars / 4) return;
    this.kept.set(key, { value, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.kept) {
      if (this.kept.size <= this.mostAnswers && this.chars <= this.mostChars) break;
      this.kept.delete(oldest);
      this.chars -= entry.chars;
    }
  }
}
