/** Loading data from the API in a view: one state per request, cancelled when the view goes away. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'ok'; data: T }
  | { state: 'error'; error: ApiError | Error; retry?: () => void };

/**
 * Run `load` whenever `deps` change; the answer of a superseded request is dropped. Never stays loading: the API
 * client gives up after its time limit with an error.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  // Asking again (an error panel's Retry) is one more run of the same request.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setLoaded({ state: 'ok', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setLoaded({
            state: 'error',
            error: error instanceof Error ? error : new Error(String(error)),
            retry: () => setAttempt((n) => n + 1),
          });
        }
      },
    );
    return () => controller.abort();
  }, [...deps, attempt]);
  return loaded;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'not-found';
}
