/**
 * Warnings that come in floods, summarised: refusals of a busy server, queries stopped at their limit, a
 * database that is down. Each is expected under load or an outage and tells the operator nothing more the
 * thousandth time: the first of a cause is written at once, the rest are counted and written as one line per
 * cause per window (10 s) while they go on, so that an outage under many clients writes a few lines, not
 * megabytes.
 */

const WINDOW_MS = 10_000;
/** Causes followed at once; past this, causes are told apart by their type alone. */
const CAUSES_KEPT = 100;

interface Window {
  count: number;
  latest: Record<string, unknown>;
  timer: NodeJS.Timeout;
}

export class WarningSummary {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly windowMs = WINDOW_MS,
  ) {}

  /**
   * A warning of `cause` (a short key: what went wrong, not which request): written now when it is the first
   * of its cause in a while, else counted into the cause's next summary line.
   */
  note(cause: string, fields: Record<string, unknown>): void {
    const key = this.windows.size < CAUSES_KEPT || this.windows.has(cause) ? cause : cause.split(' ')[0]!;
    const open = this.windows.get(key);
    if (open) {
      open.count++;
      open.latest = fields;
      return;
    }
    this.line({ ...fields, repeats: `counted, one line per ${this.windowMs / 1000} s while they go on` });
    const window: Window = { count: 0, latest: fields, timer: this.timer(key) };
    this.windows.set(key, window);
  }

  /** Write the counts not yet written (for tests, and on shutdown). */
  flush(): void {
    for (const key of [...this.windows.keys()]) this.close(key);
  }

  private timer(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const window = this.windows.get(key);
      if (!window) return;
      // While the cause goes on, its window goes on: one line per window.
      if (window.count > 0) {
        this.summary(window);
        window.count = 0;
        window.timer = this.timer(key);
      } else this.windows.delete(key);
    }, this.windowMs);
    timer.unref();
    return timer;
  }

  private close(key: string) {
    const window = this.windows.get(key);
    if (!window) return;
    clearTimeout(window.timer);
    if (window.count > 0) this.summary(window);
    this.windows.delete(key);
  }

  private summary(window: Window) {
    this.line({
      ...window.latest,
      msg: `${window.count} more like this in the last ${this.windowMs / 1000} s (the latest shown)`,
      count: window.count,
    });
  }

  private line(fields: Record<string, unknown>) {
    this.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', ...fields })}\n`);
  }
}
