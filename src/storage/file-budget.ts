/**
 * One budget of open files for everything a serving process keeps open between requests: the sources' zip
 * readers and database connections, the OPTIMADE side tables. Each holder says how many files it keeps; when
 * the total passes the budget, the least recently used holders that no request is using are closed. What is
 * left of the process's limit is for what cannot wait: client sockets, files being read by a request, logs.
 *
 * Without one budget each cache bounded itself alone (open sources, open side tables, tables let go of but kept
 * for their last readers), and their sum under load reached the process's limit: then opening anything failed
 * with EMFILE, even a good archive.
 */
import { readFileSync } from 'node:fs';

export interface FileHolder {
  /** Files it keeps open. */
  readonly files: number;
  /** A request is using it now: it is not closed under that request. */
  busy(): boolean;
  /** Close it (it is forgotten by the budget first). */
  close(): void;
}

/** The soft limit on open files of this process (Node raises it to the hard limit at start), if known. */
export function processFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    const n = Number(line);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Most files the default budget takes, whatever the limit: enough for hundreds of sources open at once. */
const DEFAULT_MOST = 2048;

/**
 * The default budget: half the process's limit (the other half for sockets and files of requests), at most
 * DEFAULT_MOST; 512 where the limit cannot be read.
 */
export function defaultFileBudget(limit = processFileLimit()): number {
  if (limit === undefined) return 512;
  return Math.max(8, Math.min(DEFAULT_MOST, Math.floor(limit / 2)));
}

/** How long a holder no request uses stays open by default (`--idle-close`). */
export const DEFAULT_IDLE_MS = 60_000;

export class FileBudget {
  /** Holders in the order they were last used, the least recent first, with when that was (ms since 1970). */
  private readonly holders = new Map<FileHolder, number>();
  private held = 0;
  private idleTimer?: ReturnType<typeof setInterval>;
  private readonly idleListeners: (() => void)[] = [];
  /** Holders closed to make room since start (for /metrics). */
  closedForRoom = 0;

  constructor(
    public limit: number = defaultFileBudget(),
    /**
     * A holder no request has used for this long is closed (0: never), so that a process comes back near its
     * size before a load once the load stops.
     */
    private idleMs = DEFAULT_IDLE_MS,
  ) {}

  /** Set the bounds (the command line's); the idle sweep follows the new time. */
  configure({ limit, idleMs }: { limit?: number; idleMs?: number }): void {
    if (limit !== undefined) this.limit = limit;
    if (idleMs !== undefined) {
      this.idleMs = idleMs;
      clearInterval(this.idleTimer);
      this.idleTimer = undefined;
      if (this.holders.size > 0) this.sweepLater();
    }
  }

  /** Told each time idle holders were closed and none is left: caches may let go of their memory too. */
  onIdle(listener: () => void): void {
    this.idleListeners.push(listener);
  }

  /** Files kept open by the holders now. */
  get used(): number {
    return this.held;
  }

  get count(): number {
    return this.holders.size;
  }

  /** A holder opened: counted, and room made for it (never by closing it). */
  add(holder: FileHolder): void {
    if (this.holders.has(holder)) return this.touch(holder);
    this.holders.set(holder, Date.now());
    this.held += holder.files;
    this.makeRoom(holder);
    this.sweepLater();
  }

  /** Used now: the last to be closed. */
  touch(holder: FileHolder): void {
    if (!this.holders.delete(holder)) return;
    this.holders.set(holder, Date.now());
  }

  /** Closed by its owner: no longer counted. */
  remove(holder: FileHolder): void {
    if (this.holders.delete(holder)) this.held -= holder.files;
  }

  /**
   * Close the least recently used idle holders until the budget holds (a request done with a holder calls
   * this again: what was busy a moment ago may be closed now).
   */
  makeRoom(spare?: FileHolder): void {
    if (this.held <= this.limit) return;
    for (const holder of [...this.holders.keys()]) {
      if (this.held <= this.limit) return;
      if (holder === spare || holder.busy()) continue;
      this.remove(holder);
      this.closedForRoom += 1;
      holder.close();
    }
  }

  private sweepLater(): void {
    if (this.idleTimer !== undefined || this.idleMs <= 0) return;
    this.idleTimer = setInterval(() => this.closeIdle(), Math.max(250, this.idleMs / 4));
    this.idleTimer.unref();
  }

  private closeIdle(): void {
    const before = Date.now() - this.idleMs;
    let closed = 0;
    for (const [holder, lastUsed] of [...this.holders]) {
      if (lastUsed > before) break;
      if (holder.busy()) continue;
      this.remove(holder);
      holder.close();
      closed += 1;
    }
    if (this.holders.size === 0) {
      clearInterval(this.idleTimer);
      this.idleTimer = undefined;
    }
    if (closed > 0 && this.holders.size === 0) for (const listener of this.idleListeners) listener();
  }
}

/** The budget of this process: every cache of open files takes its files from it. */
export const fileBudget = new FileBudget();
