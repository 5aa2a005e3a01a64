/**
 * What every query process has, whether one source's own (query-process.ts) or shared by a portal's sources
 * (shared-query-processes.ts): the child it runs in, the one answer it waits for, and how it is stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface QueryAnswer {
  rows?: unknown[];
  ms?: number;
  error?: string;
  /** The process ended while running the statement (a crash, its memory exhausted). */
  died?: boolean;
}

const PAGE_BYTES = 4096;

export abstract class QueryChild {
  protected pending?: (answer: QueryAnswer) => void;
  protected ended = false;
  /** Once the process is gone (and has let go of its database files and their locks). */
  private readonly exited: Promise<void>;

  protected constructor(protected readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.on('message', (m: QueryAnswer & { ready?: boolean }) => {
      if (m.ready) return;
      const pending = this.pending;
      this.pending = undefined;
      pending?.(m);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Send one statement; its answer comes back once, to `done`. */
  protected send(message: object, done: (answer: QueryAnswer) => void) {
    this.pending = done;
    // A process with work keeps the serving process alive, like any pending I/O; an idle one does not.
    this.child.ref();
    (this.child.channel as { ref?: () => void } | undefined)?.ref?.();
    this.child.send(message);
  }

  /** After an answer: idle again. */
  idle() {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  /** Resident memory in bytes (Linux), or undefined where it cannot be read. */
  residentBytes(): number | undefined {
    try {
      const pages = Number(readFileSync(`/proc/${this.child.pid}/statm`, 'latin1').split(' ')[1]);
      return pages * PAGE_BYTES;
    } catch {
      return undefined;
    }
  }

  /** Stop the process at once, whatever it is doing; resolves once it is gone. */
  kill(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.pending = undefined;
      this.child.removeAllListeners('message');
      // Held until its exit is seen: an unreferenced child lets a caller awaiting close() fall off the loop.
      this.child.ref();
      this.child.kill('SIGKILL');
    }
    return this.child.exitCode !== null || this.child.signalCode !== null ? Promise.resolve() : this.exited;
  }
}
