/**
 * Temporary folders of a test file: each made here is removed when the file's tests end, passed or failed
 * (test/support/cleanup.ts registers that), so that a run leaves the temporary directory as it found it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
const closers: (() => Promise<void>)[] = [];

/** `parent`: where to make it, TMPDIR unless told (a shorter path for a socket below it). */
export function tempDir(prefix = 'quarry-test-', parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  made.add(dir);
  return dir;
}

/**
 * Something to stop when the file's tests end, before its temporary folders are removed: a process a hook
 * started that may outlive the hook (a browser whose launch outlasted a timed-out beforeAll).
 */
export function atFileEnd(close: () => Promise<void>): void {
  closers.push(close);
}

/** Runs what atFileEnd() was given, each once, whether or not the others fail. */
export async function runFileEndClosers(): Promise<void> {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
}

/** Removes every folder tempDir() made in this test file (servers and processes using them are stopped first). */
export function removeTempDirs(): void {
  for (const dir of made) {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    made.delete(dir);
  }
}
