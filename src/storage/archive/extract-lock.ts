/**
 * One extraction of an archive's database for every process and instance sharing a cache folder: the
 * extracting process holds `<copy>.lock` (created exclusively, naming its host and pid); the others wait for
 * the copy to be complete, or, past their waiting time, are told to come back (503 with Retry-After). A lock
 * left by a process that died (its pid gone on this host, or not touched for long) is taken over.
 */
import { hostname } from 'node:os';
import { open, readFile, rm, stat, utimes } from 'node:fs/promises';

/** A lock not refreshed for this long belongs to a process that is gone (of another host, say). */
const STALE_MS = 60_000;
const REFRESH_MS = 10_000;
const POLL_MS = 100;

/** Another process extracts the database now and the caller could not wait for it. */
export class ExtractionBusyError extends Error {
  readonly status = 503;
  override name = 'ExtractionBusyError';
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

export interface Held {
  release(): Promise<void>;
}

async function tryTake(lock: string): Promise<Held | undefined> {
  let handle;
  try {
    handle = await open(lock, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  await handle.writeFile(`${hostname()} ${process.pid}\n`);
  await handle.close();
  // Touched while held, so that others can tell a long extraction from a dead one on another host.
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(lock, now, now).catch(() => undefined);
  }, REFRESH_MS);
  refresh.unref();
  return {
    release: async () => {
      clearInterval(refresh);
      await rm(lock, { force: true });
    },
  };
}

/** Whether the holder of `lock` is gone: its process is not running on this host, or it was left untouched. */
async function isStale(lock: string): Promise<boolean> {
  const [text, info] = await Promise.all([
    readFile(lock, 'utf8').catch(() => ''),
    stat(lock).catch(() => undefined),
  ]);
  if (info === undefined) return false;
  const [host, pid] = text.trim().split(' ');
  if (host === hostname() && pid !== undefined && /^\d+$/.test(pid)) {
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
    return false;
  }
  return Date.now() - info.mtimeMs > STALE_MS;
}

/**
 * Hold the lock of `target`, or learn that another process made the copy meanwhile (`undefined`): waits while
 * another holds it, at most `waitMs`, then throws ExtractionBusyError.
 */
export async function lockExtraction(
  target: string,
  isComplete: () => Promise<boolean>,
  waitMs: number,
): Promise<Held | undefined> {
  const lock = `${target}.lock`;
  const end = Date.now() + waitMs;
  for (;;) {
    const held = await tryTake(lock);
    if (held !== undefined) {
      // Made by another while this one looked: nothing to do.
      if (await isComplete()) {
        await held.release();
        return undefined;
      }
      return held;
    }
    if (await isComplete()) return undefined;
    if (await isStale(lock)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() >= end) {
      throw new ExtractionBusyError(
        'its database is being extracted by another Quarry process right now; try again in a few seconds',
        5,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
