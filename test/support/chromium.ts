/**
 * Debian's Chromium, which the browser tests drive (never a downloaded browser), launched so that it leaves
 * nothing behind, on a busy machine too.
 *
 * Chromium writes `.org.chromium.Chromium.*` folders into its TMPDIR and removes them only when it exits
 * cleanly; a browser killed because a test or its close timed out leaves them (and Playwright's profile folder),
 * and the suite's leak check (tmp-check.ts) rightly fails. So each browser gets a folder of its own, made by the
 * test: its profile (`--user-data-dir`), its TMPDIR and Playwright's artifacts such as downloads, removed with the
 * test file's temporary folders once the browser is gone; the browser is closed when its test file ends
 * even if the file's own hooks never ran or timed out, and killed when closing takes too long.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { atFileEnd, tempDir } from './temp.js';

export const CHROMIUM = '/usr/bin/chromium';

/** How long a browser may take to close before it is killed, unless told. */
const CLOSE_WAIT_MS = 15_000;

/** The TMPDIR each browser was given (for the tests of this module). */
const browserTmps = new WeakMap<Browser, string>();
export const browserTmpOf = (browser: Browser) => browserTmps.get(browser);

/**
 * Chromium on `executablePath` (Debian's unless told), with a profile, TMPDIR and artifacts folder of its own. Its
 * `close()` waits at most CLOSE_WAIT_MS, then kills every process of that browser, and then removes the folder.
 */
export async function launchChromium(
  options: { executablePath?: string; args?: string[]; closeWaitMs?: number } = {},
): Promise<Browser> {
  const wait = options.closeWaitMs ?? CLOSE_WAIT_MS;
  const owned = tempDir('qc-', shortParent());
  const browserTmp = join(owned, 't');
  mkdirSync(browserTmp);
  mkdirSync(join(owned, 'a'));
  // A persistent context is the launch that takes a profile folder (`--user-data-dir`) of ours; its browser makes
  // the tests' own contexts as any launched browser does.
  const launching = chromium.launchPersistentContext(join(owned, 'p'), {
    executablePath: options.executablePath ?? CHROMIUM,
    args: options.args ?? [],
    env: { ...process.env, TMPDIR: browserTmp },
    artifactsDir: join(owned, 'a'),
    timeout: 60_000,
  });
  let closed: Promise<void> | undefined;
  const ready = launching.then((context) => {
    const browser = context.browser();
    if (browser === null) throw new Error('Chromium launched with a profile folder gave no browser to drive');
    browserTmps.set(browser, browserTmp);
    const original = browser.close.bind(browser);
    browser.close = () => (closed ??= closeOrKill(original, browserTmp, wait));
    return browser;
  });
  // If the file's tests end before the launch does (its beforeAll timed out), the browser still goes.
  atFileEnd(async () => (await ready.catch(() => undefined))?.close());
  return ready;
}

/** The longest path of a Unix socket (`sun_path`, 108 bytes with its terminating zero). */
const SOCKET_PATH_MAX = 107;
/** What Chromium adds to its TMPDIR for its singleton socket, below our `qc-XXXXXX/t`. */
const SOCKET_TAIL = '/qc-XXXXXX/t/.org.chromium.Chromium.XXXXXX/SingletonSocket'.length;

/**
 * TMPDIR, unless Chromium's socket would not fit below it (it then dies on "Socket path too long"); /tmp then.
 */
function shortParent(): string {
  return tmpdir().length + SOCKET_TAIL <= SOCKET_PATH_MAX ? tmpdir() : '/tmp';
}

async function closeOrKill(close: () => Promise<void>, browserTmp: string, wait: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), wait);
  });
  const outcome = await Promise.race([
    close().then(
      () => 'closed' as const,
      () => 'failed' as const,
    ),
    timedOut,
  ]);
  clearTimeout(timer);
  if (outcome === 'closed') return;
  for (const pid of processesWithTmp(browserTmp)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // it exited meanwhile
    }
  }
}

/**
 * The pids of the processes running with this TMPDIR: one browser's own processes and nothing else's (Chromium's
 * renderers and helpers inherit its environment).
 */
export function processesWithTmp(browserTmp: string): number[] {
  const marker = `\0TMPDIR=${browserTmp}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = `\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`;
    } catch {
      continue; // gone already, or not ours to read
    }
    if (environ.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}
