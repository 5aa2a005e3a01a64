/**
 * Temporary folders of a test file: each made here is removed when the file's tests end, passed or failed
 * (test/support/cleanup.ts registers that), so that a run leaves the temporary directory as it found it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

export function tempDir(prefix = 'quarry-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder tempDir() made in this test file (servers and processes using them are stopped first). */
export function removeTempDirs(): void {
  for (const dir of made) {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    made.delete(dir);
  }
}
