import { MadeOnce } from './made-once.js';

/**
 * Answers kept up to a number of bytes (exports of archives' nodes, answers of posted queries on archives):
 * what never changes is made once. The least recently used go first; one larger than an eighth of the whole
 * is not kept, as it would push out many others.
 */

export class BytesKept<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  set(key: string, value: V): void {
    const bytes = this.sizeOf(value) + key.length;
    if (bytes > this.capacity / 8 || this.entries.has(key)) return;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes + bytes <= this.capacity) break;
      this.entries.delete(oldest);
      this.bytes -= kept.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/**
 * Values kept up to a number of bytes, each made once however many ask while it is being made: a value asked
 * again while its making runs waits for that run instead of starting another.
 */
export class KeptOnce<V> {
  private readonly kept: BytesKept<V>;
  private readonly making = new MadeOnce<V>();

  constructor(capacity: number, sizeOf: (value: V) => number) {
    this.kept = new BytesKept(capacity, sizeOf);
  }

  /** The value of `key` when kept, or its making already under way. */
  get(key: string): V | Promise<V> | undefined {
    return this.kept.get(key) ?? this.making.get(key);
  }

  /** Make `key`'s value once however many ask while it runs; keep it when `keep()` says so once it is made. */
  run(key: string, make: () => Promise<V>, keep: () => boolean): Promise<V> {
    return this.making.run(key, () =>
      make().then((value) => {
        if (keep()) this.kept.set(key, value);
        return value;
      }),
    );
  }

  get size(): { entries: number; bytes: number } {
    return this.kept.size;
  }

  /** Forget every kept value (the process is idle: its memory goes back); makings under way go on. */
  clear(): void {
    this.kept.clear();
  }
}
