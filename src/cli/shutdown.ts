/**
 * Stopping a serving process on SIGTERM/SIGINT without cutting answers short: it stops accepting connections,
 * lets the requests under way finish (for `timeoutMs` at most, then closes what is left), closes the storages
 * (pools, query processes; remote reads still under way are ended) and exits 0.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { abortRemoteReads } from '../storage/archive/http-reader.js';
/** What is closed once the requests under way have finished: the storages, or the catalog that holds them. */
type Closable = { close(): Promise<void> };

/** How often connections without a request under way are closed while draining. */
const REAP_MS = 50;

/**
 * The server's open connections. Node's own closeIdleConnections() closes those idle after an answer when the
 * stop begins, not those that become idle later nor those that have not sent a request yet; both would hold
 * the stop up until their timeouts.
 */
function trackConnections(server: Server): Set<Socket> {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return open;
}

/** No request is being received or answered on it (Node sets `_httpMessage` from a request's headers to the end of its answer). */
const idle = (socket: Socket) => !(socket as { _httpMessage?: unknown })._httpMessage;

export async function shutDown(
  app: FastifyInstance,
  backends: Closable[],
  timeoutMs: number,
  connections?: Set<Socket>,
) {
  const server = app.server;
  const reap = () => {
    for (const socket of connections ?? []) if (idle(socket)) socket.destroy();
  };
  const reaper = setInterval(reap, REAP_MS);
  const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
  try {
    const closed = app.close();
    reap();
    await closed;
  } finally {
    clearInterval(reaper);
    clearTimeout(deadline);
  }
  // Reads of remote archives still under way (an opening whose server stalls) would hold the close up.
  abortRemoteReads();
  await Promise.all(backends.map((b) => b.close()));
}

/** Shut down on the first SIGTERM or SIGINT (both may come: Ctrl-C reaches a supervisor and its processes). */
export function shutDownOnSignals(app: FastifyInstance, backends: Closable[], timeoutMs: number) {
  const connections = trackConnections(app.server);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    shutDown(app, backends, timeoutMs, connections).then(
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
