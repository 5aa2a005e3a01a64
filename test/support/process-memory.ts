/** What a process holds of its own, read from /proc: the measure of memory given back (not shared files). */
import { readFileSync } from 'node:fs';

/** A process's anonymous resident memory (its heaps, not mapped files), in bytes; this process's by default. */
export function anonymousBytes(pid: number | 'self' = 'self'): number {
  return 1024 * Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}
