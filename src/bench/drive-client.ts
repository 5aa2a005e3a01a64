/**
 * The harness's side of the load generator (drive.ts, a process of its own): running it on a job, and the
 * never-asked bodies that both sides make the same way.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DriveJob, DriveResult } from './drive.js';

/** Where a never-asked number goes in a posted body (keys into it), and with which sign. */
export interface FreshAt {
  path: string[];
  negative?: boolean;
}

/** `body` with the number `n` where `at` says (its `limit` when `at` is not given). */
export function withFreshNumber<T extends object>(body: T, n: number, at?: FreshAt): T {
  const path = at?.path ?? ['limit'];
  const copy = structuredClone(body) as Record<string, unknown>;
  let into = copy;
  for (const key of path.slice(0, -1)) into = (into[key] ??= {}) as Record<string, unknown>;
  into[path[path.length - 1]!] = at?.negative ? -n : n;
  return copy as T;
}

/** Run the load generator in its own process on `job`. */
export function runDrive(job: DriveJob): Promise<DriveResult> {
  const script = fileURLToPath(new URL('drive.js', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, JSON.stringify(job)], { maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) return reject(new Error(`the load generator failed: ${error.message}`));
      try {
        resolve(JSON.parse(stdout) as DriveResult);
      } catch {
        reject(new Error(`the load generator answered ${JSON.stringify(stdout.slice(0, 200))}`));
      }
    });
  });
}
