/**
 * Serving on several processes (Node's cluster): each process opens the storages and runs its own server on
 * the one listening socket, so HTTP parsing, decoding and formatting use every core, not only the queries'
 * worker threads. A keep-alive connection is handed to a process once, not request by request.
 *
 * The first process supervises: it starts the others, answers for them at start-up (one line, exit 1, when
 * they cannot serve), starts a new one when one dies, and stops them all on a signal.
 */
import cluster, { type Worker } from 'node:cluster';
import { CliError } from './errors.js';

/** Whether this process is one of the serving processes a supervisor started. */
export const isServingProcess = (): boolean => cluster.isWorker;

/** A serving process that cannot start tells its supervisor why, in one line, before it exits. */
export function reportStartFailure(message: string): void {
  process.send?.({ quarryStartFailure: message });
}

/** How long a replacement waits after a serving process died, so that a crash loop does not spin. */
const RESTART_DELAY_MS = 1_000;

/**
 * Start `count` serving processes (each re-runs this program with `env` added) and resolve with the port they
 * share once all listen. Refuses with the first one's reason when one cannot start.
 */
export function superviseProcesses(count: number, env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    let listening = 0;
    let started = false;
    let stopping = false;
    const failures: string[] = [];

    const fork = () => {
      const worker = cluster.fork(env);
      worker.on('message', (m: { quarryStartFailure?: string }) => {
        if (typeof m?.quarryStartFailure === 'string') failures.push(m.quarryStartFailure);
      });
      return worker;
    };

    const stopAll = (code: number) => {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}) as Worker[];
      if (workers.length === 0) process.exit(code);
      let left = workers.length;
      for (const worker of workers) {
        worker.once('exit', () => --left === 0 && process.exit(code));
        worker.process.kill('SIGTERM');
      }
    };

    cluster.on('listening', (_worker, address) => {
      if (started || ++listening < count) return;
      started = true;
      resolve(address.port);
    });

    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (!started) {
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {}) as Worker[]) other.process.kill('SIGTERM');
        reject(new CliError(failures[0] ?? `a serving process stopped while starting (exit code ${code})`));
        return;
      }
      // A process that stopped by itself on a signal (Ctrl-C reaches the whole group) is not replaced.
      if (code === 0 && signal === null) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
        return;
      }
      process.stderr.write(
        `quarry: serving process ${worker.process.pid} died (${signal ?? `exit code ${code}`}); starting another\n`,
      );
      setTimeout(() => stopping || fork(), RESTART_DELAY_MS);
    });

    process.once('SIGINT', () => stopAll(0));
    process.once('SIGTERM', () => stopAll(0));
    for (let i = 0; i < count; i++) fork();
  });
}
