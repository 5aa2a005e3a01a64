/**
 * A live database's node-wide summaries (statistics, type counts) take a pass over every node: seconds at
 * millions of nodes. A serving process computes them as it starts rather than on the first request, and says
 * it is not ready (`/readyz`) until they are kept, so that a load balancer or orchestrator that asks sends it
 * requests only once they are answered in milliseconds. An archive needs none of this: its summaries were
 * computed when it was extracted.
 */
import { budgeted } from '../storage/budgeted.js';
import type { StorageBackend } from '../storage/types.js';
import { summariesOnDisk, warmSummaries } from '../rest/node-summaries.js';
import { within } from '../util/within.js';

/** When each storage's warm-up began, while it runs. */
const warming = new WeakMap<StorageBackend, number>();

/**
 * How long a start waits, before it listens, for summaries an earlier run kept on disk: they are read in
 * milliseconds, but a database that does not answer must not keep the server from listening.
 */
const FROM_DISK_WAIT_MS = 5000;

/**
 * Compute the summaries of every live storage in the background, each within `timeoutMs` (the query time
 * limit). A failure is reported and ends the warm-up: the first request computes them, as it would have.
 * Resolves once the storages whose summaries an earlier run kept on disk have read them, so that a server
 * started again on an unchanged database is ready from its first answer; `done` when every warm-up has ended.
 */
export async function warmUp(
  backends: StorageBackend[],
  timeoutMs: number,
  onFailure: (backend: StorageBackend, error: Error) => void,
): Promise<{ done: Promise<void> }> {
  const live = backends.filter((b) => b.dataVersion !== undefined);
  const runs = live.map(async (backend) => {
    warming.set(backend, Date.now());
    try {
      await warmSummaries(budgeted(backend, { deadline: Date.now() + timeoutMs }));
    } catch (error) {
      onFailure(backend, error as Error);
    } finally {
      warming.delete(backend);
    }
  });
  const done = Promise.all(runs).then(() => undefined);
  const fromDisk = live.map(async (backend, i) => {
    const kept = await summariesOnDisk(budgeted(backend, { deadline: Date.now() + FROM_DISK_WAIT_MS })).catch(
      () => false,
    );
    if (kept) await runs[i];
  });
  await within(Promise.all(fromDisk), FROM_DISK_WAIT_MS);
  return { done };
}

/** Why the storage is not ready yet, while its warm-up runs. */
export function warmingMessage(backend: StorageBackend): string | undefined {
  const since = warming.get(backend);
  if (since === undefined) return undefined;
  const seconds = Math.round((Date.now() - since) / 1000);
  return `its node statistics and type counts are being computed ahead of the first requests (for ${seconds} s)`;
}
