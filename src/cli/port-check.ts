/**
 * The port is tried before anything is opened: a port in use is said at once, not after the storages were opened
 * (an archive's first extraction takes minutes) and the serving processes started.
 */
import { createServer } from 'node:net';
import { CliError } from './errors.js';

/** The one line for a failed listen, with the option that fixes it. */
export function listenFailure(host: string, port: number, error: NodeJS.ErrnoException): string {
  const where = `cannot listen on ${host}:${port}`;
  if (error.code === 'EADDRINUSE')
    return `${where}: the port is in use (another server?); choose another with --port`;
  if (error.code === 'EACCES') return `${where}: not allowed to use this port; choose another with --port`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return `${where}: this machine has no such address; choose another with --host`;
  return `${where}: ${error.message}`;
}

/** Refuses with listenFailure() when `host:port` cannot be listened on now (port 0: any free one, always). */
export async function refuseUnusablePort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new CliError(listenFailure(host, port, error))),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
