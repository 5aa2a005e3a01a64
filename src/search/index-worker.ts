/**
 * The worker thread that makes a process's search indexes (index-build.ts), one after another: a source's
 * index is made at its first opening, while the serving thread answers other requests; built in that thread, an
 * index of 10^5 nodes would hold every request of the process for most of a second.
 */
import { parentPort } from 'node:worker_threads';
import { buildIndex } from './index-build.js';

export interface IndexTask {
  source: string;
  out: string;
  meta: Record<string, string>;
}

export type IndexReply = { id: number } & ({ ok: true } | { ok: false; error: string });

// One task at a time, in the order sent: each build is synchronous, so the next message waits for it.
parentPort!.on('message', ({ id, task }: { id: number; task: IndexTask }) => {
  let reply: IndexReply;
  try {
    buildIndex(task.source, task.out, task.meta);
    reply = { id, ok: true };
  } catch (error) {
    reply = { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
