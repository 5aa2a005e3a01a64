/**
 * Blocks of remote archives kept in memory, least recently used dropped first, within a bound in bytes for the
 * whole process: a portal of many remote archives holds no more than the bound, however many are open.
 * Keys name the archive's URL and version, so a block of a replaced file is never served for the new one.
 */

/** Default bound of the process's blocks of remote archives: 64 MiB. */
export const DEFAULT_REMOTE_CACHE_BYTES = 64 << 20;

export class ByteCache {
  private readonly blocks = new Map<string, Buffer>();
  private held = 0;

  constructor(readonly maxBytes: number = DEFAULT_REMOTE_CACHE_BYTES) {}

  get bytes(): number {
    return this.held;
  }

  get(key: string): Buffer | undefined {
    const block = this.blocks.get(key);
    if (block === undefined) return undefined;
    // Map order is insertion order: taken out and put back, the block becomes the most recently used.
    this.blocks.delete(key);
    this.blocks.set(key, block);
    return block;
  }

  set(key: string, block: Buffer): void {
    if (block.length > this.maxBytes) return;
    const before = this.blocks.get(key);
    if (before !== undefined) {
      this.blocks.delete(key);
      this.held -= before.length;
    }
    this.blocks.set(key, block);
    this.held += block.length;
    for (const [oldest, value] of this.blocks) {
      if (this.held <= this.maxBytes) break;
      this.blocks.delete(oldest);
      this.held -= value.length;
    }
  }

  /** Forget every block whose key starts with `prefix` (an archive closed or replaced). */
  drop(prefix: string): void {
    for (const [key, value] of this.blocks) {
      if (!key.startsWith(prefix)) continue;
      this.blocks.delete(key);
      this.held -= value.length;
    }
  }
}

/** The blocks of every remote archive of this process. */
export const remoteBlocks = new ByteCache();
