/**
 * A worker thread that makes one search index (index-build.ts): a source's index is made at its first
 * opening, while the serving thread answers other requests; built in that thread, an index of 10^5 nodes
 * would hold every request of the process for most of a second.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildIndex } from './index-build.js';

export interface IndexTask {
  source: string;
  out: string;
  meta: Record<string, string>;
}

export type IndexReply = { ok: true } | { ok: false; error: string };

const task = workerData as IndexTask;
let reply: IndexReply;
try {
  buildIndex(task.source, task.out, task.meta);
  reply = { ok: true };
} catch (error) {
  reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(reply);
