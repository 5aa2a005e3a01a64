/**
 * Whole answers of an archive's costly GETs, kept as the bytes sent: an archive never changes, and the links
 * tree of a hub (a code used by 17,594 calculations: 4.9 MB, half a second at 10^5 nodes) was built anew for
 * each of 32 clients asking it at once, until clients gave up waiting. Only answers that took a while to make
 * are kept (cheap ones cost less to make than to keep), up to a number of bytes; while one is being made,
 * others asking for it wait for that one instead of making their own.
 */
import { KeptOnce } from '../util/bytes-kept.js';

export class KeptAnswers {
  private readonly kept: KeptOnce<Buffer>;

  constructor(
    capacityBytes: number,
    /** Answers that took at least this long to make are kept. */
    private readonly keepMs: number,
  ) {
    this.kept = new KeptOnce(capacityBytes, (body) => body.length);
  }

  /** The answer named `key` (which must name everything its bytes are made of), made by `make` if not kept. */
  answer(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    const known = this.kept.get(key);
    if (known !== undefined) return Promise.resolve(known);
    const started = performance.now();
    return this.kept.run(key, make, () => performance.now() - started >= this.keepMs);
  }

  get size(): { entries: number; bytes: number } {
    return this.kept.size;
  }

  clear(): void {
    this.kept.clear();
  }
}

/**
 * The serving process's kept answers of costly GETs on archives. Small: their whole answers are kept once for the
 * machine with the other GET answers (src/ops/kept-gets.ts); these serve many clients asking at once, and servers
 * that keep no whole answers.
 */
export const keptGets = new KeptAnswers(16 * 1024 * 1024, 20);
