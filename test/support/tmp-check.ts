/**
 * Global set-up of the suite (vitest.config.ts): the tests run with TMPDIR set to a folder of their own, and at
 * the end whatever is left in it is a leak: some test did not remove what it made. The run fails naming it, and
 * the folder is removed, so that `npm test` leaves the machine's temporary directory as it found it.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const outer = tmpdir();
  const dir = mkdtempSync(join(outer, 'quarry-suite-'));
  // Open to other users as the temporary directory itself is: test PostgreSQL clusters run as user postgres.
  chmodSync(dir, 0o755);
  // Test workers and every process they start (servers, PostgreSQL, Chromium) inherit it.
  process.env.TMPDIR = dir;
  return () => {
    const left = readdirSync(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    process.env.TMPDIR = outer;
    if (left.length > 0) {
      const names = left.slice(0, 20).join(', ');
      console.error(`the tests left ${left.length} entries in the temporary directory: ${names}`);
      process.exitCode = 1;
      throw new Error(`the tests left ${left.length} entries in the temporary directory: ${names}`);
    }
  };
}
