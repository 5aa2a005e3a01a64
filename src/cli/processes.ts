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
import { isMetricsMessage, onMetricsMessage } from '../ops/cluster-metrics.js';
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

/**
 * A line every serving process says alike (a portal's source added, removed or replaced: each process sees the
 * change): the supervisor writes it once. Without a supervisor it is written here.
 */
export function sayForAll(line: string): void {
  if (isServingProcess() && process.send) process.send({ quarryLine: line });
  else process.stderr.write(`quarry: ${line}\n`);
}

/** What a serving process tells its supervisor. */
interface ServingMessage {
  quarryStartFailure?: string;
  quarryOpened?: boolean;
  quarryServing?: string[];
  quarryLine?: string;
}

/** How long the supervisor waits for the other processes' copies of a line before it would say it again. */
const SAID_FOR_ALL_MS = 60_000;

/**
 * Says each line of sayForAll() once: the first process's copy is written, and the others' copies, one from each
 * living process, are swallowed; a process that dies before sending its copy holds the line back a minute at most.
 */
function onceForAll(living: () => number): (line: string) => void {
  const pending = new Map<string, { copies: number; since: number }>();
  return (line) => {
    const now = Date.now();
    const seen = pending.get(line);
    if (seen === undefined || now - seen.since > SAID_FOR_ALL_MS) {
      process.stderr.write(`quarry: ${line}\n`);
      if (living() > 1) pending.set(line, { copies: 1, since: now });
      else pending.delete(line);
      return;
    }
    if (++seen.copies >= living()) pending.delete(line);
  };
}

/**
 * V8's young generation per isolate (main thread and each query worker), in MB; Node's default is 16. Serving
 * allocates short-lived objects only, so a smaller one costs little CPU on most answers (0 to 4 % per answer at
 * 2 MB, measured) and keeps each serving process 25 to 35 MB smaller (the whole request mix at 10^7 nodes: 490
 * -> 424 MB in all). Large answers made anew pay for it: the explorer's grid never asked (418 kB, 2,319 records)
 * spends 1.9 ms a request collecting garbage at 4 MB, 1.55 at 8 and 0.6 at 16; a never-asked join of 20 rows
 * 52, 41 and 31 µs. At 16 the side-by-side bench's processes held 560 MB (PSS) right after 16 clients on the
 * archive, past the machine's bound of 1.5 times idle plus the kept answers' 256 MiB, and 445 MB on PostgreSQL
 * 15 s later (285 at 4). A setting of the user's own (NODE_OPTIONS or node's arguments) wins.
 */
const SEMI_SPACE_MB = 4;

/**
 * Serving processes collect garbage in their own thread (`--single-threaded-gc`): there is one per core, so V8's
 * helper threads only took cores from the other serving processes. At one client, a never-asked posted join cost
 * 4-7 % less CPU per answer this way, the explorer's grid 10-18 % less (servers of each kind in turns,
 * docs/performance.md); at 16 and 64 clients the rates stayed the same.
 *
 * Without V8's memory reducer (`--no-memory-reducer`): from 8 s after a full collection on, it collects the heap of
 * an isolate that allocates little, which throws away the request path's optimized code (src/util/idle-memory.ts);
 * a serving process collects on its own once quiet for a while. Two servers of two serving processes, one client's
 * never-asked joins in 5 s windows on each in turn with 15 s between, 8 times: 526-701 µs of CPU per answer (median
 * 620) without it, 604-895 (median 778) with it even with its first look put off to 60 s. After a few seconds' load,
 * a process without it holds about 30 MB more once quiet (RSS 114 MB against 84 with it, 85-89 idle).
 */
const SERVING_FLAGS: readonly { name: string; flag: string }[] = [
  { name: 'max-semi-space-size', flag: `--max-semi-space-size=${SEMI_SPACE_MB}` },
  { name: 'single-threaded-gc', flag: '--single-threaded-gc' },
  { name: 'memory-reducer', flag: '--no-memory-reducer' },
];

/**
 * glibc's malloc gives each thread that allocates at once an arena of its own, up to eight per core, and keeps
 * every arena for the process's life: the threads of side-table builds, symmetry passes, figures and libuv's pool
 * left 15-16 MB each behind them that malloc_trim could not give back (it frees whole free pages only). Two
 * arenas (the main thread's, one for every other thread): a portal of 240 sources, each asked once in turn by
 * one serving process, went from 108-130 MB idle to 155-182 MB after with the default, to 98 -> 136 MB with two.
 * A setting of the user's own wins.
 */
const SERVING_ENV: Record<string, string> =
  process.env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : {};

/** The process's own arguments, with each of SERVING_FLAGS the user did not set (or unset) themselves. */
function servingArguments(): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return [
    ...process.execArgv,
    ...SERVING_FLAGS.filter(({ name }) => !given.includes(name)).map((f) => f.flag),
  ];
}

/**
 * Connections handed to a serving process that has not taken them yet. The supervisor accepts each connection
 * and passes it over the IPC channel (Node's cluster, round-robin); it keeps its own copy open until the process
 * replies that it took it. When the process dies first, no reply comes and Node never closes that copy: the
 * client waits forever on a connection no one serves. Closing the copies when the process dies resets those
 * connections at once, and their clients can try again.
 *
 * The hand-over is Node's internal protocol (`NODE_CLUSTER` messages, `newconn` answered by `ack: seq`), seen
 * here through the process's public `send` and its 'internalMessage' event; nothing of it is changed.
 */
function trackHandedConnections(worker: Worker): () => void {
  const child = worker.process;
  const handed = new Map<number, { close(): void }>();
  const send = child.send.bind(child) as (...args: unknown[]) => boolean;
  (child as unknown as { send: (...args: unknown[]) => boolean }).send = (...args: unknown[]) => {
    const [message, handle] = args as [ClusterMessage | undefined, { close?: () => void } | undefined];
    if (message?.cmd === 'NODE_CLUSTER' && message.act === 'newconn' && typeof handle?.close === 'function') {
      handed.set(message.seq as number, handle as { close(): void });
    }
    return send(...args);
  };
  child.on('internalMessage', (message: ClusterMessage | undefined) => {
    if (message?.cmd === 'NODE_CLUSTER' && typeof message.ack === 'number') handed.delete(message.ack);
  });
  return () => {
    for (const handle of handed.values()) handle.close();
    handed.clear();
  };
}

interface ClusterMessage {
  cmd?: string;
  act?: string;
  seq?: number;
  ack?: number;
}

/** How long past the drain time limit a serving process may take to close its storages and exit. */
const STOP_GRACE_MS = 5_000;

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
  { shutdownMs = 10_000, hangUp = false }: { shutdownMs?: number; hangUp?: boolean } = {},
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
    const living = () => (Object.values(cluster.workers ?? {}) as Worker[]).filter((w) => !w.isDead()).length;
    const sayOnce = onceForAll(living);

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
      const worker = cluster.fork({ ...SERVING_ENV, ...env });
      const closeHanded = trackHandedConnections(worker);
      worker.process.once('exit', closeHanded);
      // Node reports a message it could not send to a process that just died as an error of that process;
      // unheard, it would stop the supervisor. The death itself is handled on 'exit'.
      worker.on('error', (error: Error) => {
        if (worker.isDead() || !worker.isConnected()) return;
        process.stderr.write(`quarry: serving process ${worker.process.pid}: ${error.message}\n`);
      });
      worker.on('message', (m: ServingMessage) => {
        if (isMetricsMessage(m)) onMetricsMessage(worker, m);
        if (typeof m?.quarryStartFailure === 'string') failures.push(m.quarryStartFailure);
        if (typeof m?.quarryLine === 'string') sayOnce(m.quarryLine);
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
      // A process that died while a connection was being handed to it stays listed (Node never sees it
      // disconnect); it will not exit again.
      const workers = (Object.values(cluster.workers ?? {}) as Worker[]).filter((w) => !w.isDead());
      if (workers.length === 0) process.exit(code);
      let left = workers.length;
      for (const worker of workers) {
        worker.once('exit', () => --left === 0 && process.exit(code));
        worker.process.kill('SIGTERM');
      }
      // Each process bounds its own drain; one that has not exited a while after it is stuck.
      setTimeout(() => {
        for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
        process.stderr.write('quarry: serving processes did not stop in time and were killed\n');
        process.exit(1);
      }, shutdownMs + STOP_GRACE_MS).unref();
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
        if ((Object.values(cluster.workers ?? {}) as Worker[]).every((w) => w.isDead())) process.exit(0);
        return;
      }
      process.stderr.write(
        `quarry: serving process ${worker.process.pid} died (${signal ?? `exit code ${code}`}); starting another\n`,
      );
      setTimeout(() => stopping || fork(), RESTART_DELAY_MS);
    });

    // Once: a second Ctrl-C while stopping stops at once (the default action of the signal).
    process.once('SIGINT', () => stopping || stopAll(0));
    process.once('SIGTERM', () => stopping || stopAll(0));
    // A portal reads its sources again on SIGHUP: every serving process does.
    if (hangUp) {
      process.on('SIGHUP', () => {
        for (const worker of Object.values(cluster.workers ?? {}) as Worker[])
          if (!worker.isDead()) worker.process.kill('SIGHUP');
      });
    }
    fork();
  });
}
