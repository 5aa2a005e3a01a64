/**
 * Stopping a serving process on SIGTERM/SIGINT without cutting answers short: it stops accepting connections,
 * lets the requests under way finish (for `timeoutMs` at most, then closes what is left), closes the storages
 * (pools, query processes) and exits 0.
 */
import type { FastifyInstance } from 'fastify';
import type { StorageBackend } from '../storage/types.js';

/** How often connections that have finished their answer are closed while draining. */
const REAP_MS = 50;

export async function shutDown(app: FastifyInstance, backends: StorageBackend[], timeoutMs: number) {
  const server = app.server;
  // A keep-alive connection whose request is under way becomes idle once it is answered; closed then, not
  // after the keep-alive time (Node closes the connections idle when the close starts, not those idle later).
  const reaper = setInterval(() => server.closeIdleConnections(), REAP_MS);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  try {
    await app.close();
  } finally {
    clearInterval(reaper);
    clearTimeout(deadline);
  }
  await Promise.all(backends.map((b) => b.close()));
}

/** Shut down on the first SIGTERM or SIGINT (both may come: Ctrl-C reaches a supervisor and its processes). */
export function shutDownOnSignals(app: FastifyInstance, backends: StorageBackend[], timeoutMs: number) {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    shutDown(app, backends, timeoutMs).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`quarry: while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
