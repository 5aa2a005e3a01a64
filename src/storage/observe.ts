/**
 * Watching the storages from outside (the metrics of src/ops/): what their queries cost, and what preparing
 * a storage did. Storage code only reports here; nothing is watched until someone asks to.
 */

/** Told of every statement a request ran: how long it took, and the error it ended with, if any. */
export type QueryObserver = (ms: number, error: unknown) => void;

let observer: QueryObserver | undefined;

/** Watch every request's statements from now on (one observer per process); returns the undo. */
export function observeQueries(watch: QueryObserver): () => void {
  observer = watch;
  return () => {
    if (observer === watch) observer = undefined;
  };
}

export function queryObserver(): QueryObserver | undefined {
  return observer;
}

/** How far a long step of preparing a storage has come (an archive's database being extracted). */
export type ProgressCallback = (step: string, done: number, total: number) => void;
