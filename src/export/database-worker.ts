/**
 * The thread a large export's database is written in (database-copy.ts): the copy of 10^5 nodes takes about a
 * second, which the serving thread would otherwise spend away from every other request. One task, then gone.
 */
import { parentPort } from 'node:worker_threads';
import { copyDatabase, type CopyTask } from './database-copy.js';

export type CopyReply = { ok: true } | { ok: false; error: string };

parentPort!.once('message', (task: CopyTask) => {
  let reply: CopyReply;
  try {
    copyDatabase(task);
    reply = { ok: true };
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
