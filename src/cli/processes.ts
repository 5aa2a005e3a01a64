/**
 * Serving on several processes (Node's cluster): each process opens the storages and runs its own server on
 * the one listening socket, so HTTP parsing, decoding and formatting use every core, not only the queries'
 * worker threads. A keep-alive connection is handed to a process once, not request by request.
 *
 * The first process supervises and opens no storage itself. It starts one serving process, and the others once
 * that one has opened its storages (or listens, if it never says so): the first refuses what cannot be opened
 * (said once: one line, exit 1) and extracts an archive once for all, and the others then start while the first
 * is still loading its HTTP server. It starts a new process when one dies, and stops them all on a signal.
 */
import cluster, { type Worker } from 'node:cluster';
import { CliError } from './errors.js';

/** Whether this process is one of the serving processes a supervisor started. */
export const isServingProcess = (): boolean => cluster.isWorker;

/** A serving process that cannot start tells its supervisor why, in one line, and exits once that is sent. */
export function exitWithStartFailure(message: string): void {
  if (!process.send) process.exit(1);
  process.send({ quarryStartFailure: message }, () => process.exit(1));
}

/** A serving process that has opened its storages says so: the supervisor may start the others. */
export function reportOpened(): void {
  process.send?.({ quarryOpened: true });
}

/** A serving process that listens tells its supervisor the names of the storages it serves. */
export function reportServing(names: string[]): void {
  process.send?.({ quarryServing: names });
}

/** What a serving process tells its supervisor while it starts. */
interface ServingMessage {
  quarryStartFailure?: string;
  quarryOpened?: boolean;
  quarryServing?: string[];
}

/**
 * V8's young generation per isolate (main thread and each query worker), in MB; Node's default is 16. Serving
 * allocates short-lived objects only, so a smaller one costs little CPU (0 to 4 % per answer at 2 MB, measured)
 * and keeps each serving process 25 to 35 MB smaller (the whole request mix at 10^7 nodes: 490 -> 424 MB in
 * all). A setting of the user's own (NODE_OPTIONS or node's arguments) wins.
 */
const SEMI_SPACE_MB = 4;

function servingArguments(): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) =>
    a.includes('--max-semi-space-size'),
  );
  return given ? process.execArgv : [...process.execArgv, `--max-semi-space-size=${SEMI_SPACE_MB}`];
}

/** How long a replacement waits after a serving process died, so that a crash loop does not spin. */
const RESTART_DELAY_MS = 1_000;

/**
 * Start `count` serving processes (each re-runs this program with `env` added) and resolve with the port they
 * share and the names of what they serve once all listen. Refuses with the first one's reason when one cannot
 * start.
 */
export function superviseProcesses(
  count: number,
  env: Record<string, string> = {},
): Promise<{ port: number; names: string[] }> {
  cluster.setupPrimary({ execArgv: servingArguments() });
  return new Promise((resolve, reject) => {
    let listening = 0;
    let port = 0;
    let names: string[] | undefined;
    let started = false;
    let stopping = false;
    let othersForked = false;
    const failures: string[] = [];

    // Ready once every process listens and the first has said what it serves (two messages, either order).
    const resolveWhenReady = () => {
      if (started || listening < count || names === undefined) return;
      started = true;
      resolve({ port, names });
    };

    const forkOthers = () => {
      if (othersForked) return;
      othersForked = true;
      for (let i = 1; i < count; i++) fork();
    };

    const fork = () => {
      const worker = cluster.fork(env);
      worker.on('message', (m: ServingMessage) => {
        if (typeof m?.quarryStartFailure === 'string') failures.push(m.quarryStartFailure);
        if (m?.quarryOpened === true) forkOthers();
        if (Array.isArray(m?.quarryServing)) {
          names = m.quarryServing;
          resolveWhenReady();
        }
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
      if (started) return;
      port = address.port;
      listening += 1;
      forkOthers();
      resolveWhenReady();
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
    fork();
  });
}
