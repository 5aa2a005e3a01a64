/**
 * Exports of nodes of storages that never change (archives), kept: a plot drawn or a file converted once is
 * the same answer for every later request. Bounded by bytes; the least recently used go first.
 */

const KEPT_BYTES = 64 * 1024 * 1024;
/** An answer larger than this is not kept: it would push out many others. */
const LARGEST_KEPT = 8 * 1024 * 1024;

export class ExportCache<V extends { content: Buffer }> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly capacity = KEPT_BYTES) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    const size = value.content.length + key.length;
    if (size > Math.min(LARGEST_KEPT, this.capacity) || this.entries.has(key)) return;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes + size <= this.capacity) break;
      this.entries.delete(oldest);
      this.bytes -= kept.content.length + oldest.length;
    }
    this.entries.set(key, value);
    this.bytes += size;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
