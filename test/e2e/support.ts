/**
 * The browser tests' harness: the built `quarry serve` on a free port of 127.0.0.1, Debian's Chromium driven by
 * playwright-core (never a downloaded browser), and a record of everything that went wrong in the page: failed
 * requests, answers of 400 and more, console errors, uncaught exceptions.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { cli, serveProcesses, type Serving } from '../support/serving.js';

export { CHROMIUM };
export const repoRoot = join(import.meta.dirname, '../..');
export const screenshotDir = join(repoRoot, 'test-results/screenshots');
const builtPage = join(repoRoot, 'dist/web/index.html');

/**
 * Why the browser tests cannot run here, or undefined when they can (the suite says it once:
 * test/support/system-check.ts). CI sets QUARRY_REQUIRE_BROWSER, so that a missing browser fails there instead
 * of skipping.
 */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (npm run setup:system installs it); the browser tests are skipped`;
  if (process.env.QUARRY_REQUIRE_BROWSER) throw new Error(`${reason}, but QUARRY_REQUIRE_BROWSER is set`);
  return reason;
}

/** A node as the API lists it: the fields the browser tests compare with the page. */
export interface ApiNode {
  uuid: string;
  id: number;
  label: string;
  node_type: string;
}

/** `npm run build` unless the CLI and the web app are built (CI's `npm ci` builds both). */
export function ensureBuilt(): void {
  if (existsSync(cli) && existsSync(builtPage)) return;
  try {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'pipe' });
  } catch (error) {
    const out = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `the browser tests need the built server and web app, and \`npm run build\` failed:\n${out.stdout ?? ''}${out.stderr ?? ''}`,
    );
  }
}

/** `quarry serve` (one process) on the given sources; its explorer is at `base`. */
export async function serveExplorer(sources: string[], extra: string[] = []) {
  ensureBuilt();
  const [first, ...rest] = sources;
  const serving: Serving = await serveProcesses(first!, 1, [...rest, ...extra]);
  const base = `http://127.0.0.1:${serving.port}`;
  return {
    ...serving,
    base,
    /** GET an API path (relative to /api/v4) as JSON, with its total count. */
    api: async <T>(path: string): Promise<{ data: T; total?: number }> => {
      const response = await fetch(`${base}/api/v4${path}`);
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      const total = response.headers.get('x-total-count');
      return {
        data: ((await response.json()) as { data: T }).data,
        total: total === null ? undefined : Number(total),
      };
    },
    stop: () => {
      serving.server.kill('SIGTERM');
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** What went wrong so far (requests, console, exceptions), in words. */
  problems: string[];
  /** Answers with these statuses to URLs matching `pattern` are expected (a test of a not-found page). */
  expect(pattern: RegExp, status: number): void;
}

/**
 * Chromium with a temporary folder of its own, closed (or killed) and cleaned away when the test file ends even if
 * its hooks time out (test/support/chromium.ts).
 */
export async function launchBrowser(): Promise<Browser> {
  return launchChromium({
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/** A new page (1280×800 unless told, the system's light scheme) that records every problem. */
export async function watchedPage(
  browser: Browser,
  options: { dark?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: options.viewport
      ? { width: options.viewport.width, height: options.viewport.height }
      : { width: 1280, height: 800 },
    colorScheme: options.dark ? 'dark' : 'light',
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const expected: { pattern: RegExp; status: number }[] = [];
  const isExpected = (url: string, status: number) =>
    expected.some((e) => e.status === status && e.pattern.test(url));
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? 'failed';
    // A navigation away aborts the requests of the view left; that is not a failure of the page.
    if (failure === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.method()} ${request.url()}: ${failure}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !isExpected(response.url(), response.status())) {
      problems.push(`answer ${response.status()}: ${response.request().method()} ${response.url()}`);
    }
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs every answer of 400 or more as a console error; those are judged by the response above.
    if (/^Failed to load resource: the server responded with a status of \d+/.test(message.text())) return;
    problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems, expect: (pattern, status) => expected.push({ pattern, status }) };
}

/** A screenshot of the page as a test artifact (test-results/screenshots/NAME.png, not kept in git). */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  return file;
}

/**
 * A page of the node list where no order is asked for, as the API gives it: the labelled nodes first, then the
 * unlabelled, each newest first (`filter`: the list's v4 filters, `&`-joined).
 */
export async function labelledFirstPage(
  served: Awaited<ReturnType<typeof serveExplorer>>,
  filter: string,
  page = 1,
  perpage = 20,
): Promise<{ nodes: ApiNode[]; total: number }> {
  const part = (label: string, offset: number, limit: number) =>
    served.api<{ nodes: ApiNode[] }>(
      `/nodes/?limit=${limit}&offset=${offset}&orderby=-ctime,id&${[filter, encodeURI(label)].filter((p) => p !== '').join('&')}`,
    );
  const start = (page - 1) * perpage;
  const labelled = await part('label!=""', start, perpage);
  const before = labelled.total ?? 0;
  const rest = await part(
    'label=""',
    Math.max(0, start - before),
    Math.max(1, perpage - labelled.data.nodes.length),
  );
  const nodes = [...labelled.data.nodes, ...rest.data.nodes].slice(0, perpage);
  return { nodes, total: before + (rest.total ?? 0) };
}
