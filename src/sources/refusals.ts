/** Refusals of a source's requests that name the source, keeping what the storage said about coming back. */
import { asShortage } from '../storage/shortage.js';

/**
 * A source that cannot be opened: the request is answered 502 naming the source and what is wrong, or 503 with
 * `Retry-After` when what is wrong may pass by itself (its database cannot be reached now).
 */
export class SourceOpenFailedError extends Error {
  override name = 'SourceOpenFailedError';
  constructor(
    message: string,
    readonly status: 502 | 503 = 502,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Seconds a client is told to wait before asking again a source whose database is out. */
export const UNREACHABLE_RETRY_S = 5;

/** Whether an error, or one that caused it, says its database is out for now (DatabaseUnavailableError). */
export function outForNow(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { status?: unknown }).status === 503) return true;
  }
  return false;
}

/** A refusal that says when to come back (503), naming the source it is about; status and Retry-After kept. */
export function named(name: string, what: string, error: unknown): Error {
  const problem = error instanceof Error ? error : new Error(String(error));
  const status = (problem as { status?: unknown }).status;
  const retryAfter = (problem as { retryAfter?: unknown }).retryAfter;
  return Object.assign(new Error(`the source "${name}" ${what}: ${problem.message}`), {
    status: status === 502 || status === 503 ? status : 503,
    ...(typeof retryAfter === 'number' ? { retryAfter } : {}),
  });
}

/**
 * The answer to requests of a source whose opening failed with `problem`. A SourceOpenFailedError is a verdict
 * on the source (kept for a few seconds by the catalog); anything else passes by itself: the source is gone
 * (removed between two looks at its folder: 404), busy elsewhere (extracted by another process: 503), or the
 * server is out of files or memory for now (503 naming the resource, nothing said of the source's data).
 */
export function openingRefused(name: string, problem: Error): Error {
  const status = (problem as { status?: unknown }).status;
  if (status === 404) return problem;
  const shortage = asShortage(problem, `the source "${name}"`);
  if (shortage !== undefined) return shortage;
  if (status === 503) return named(name, 'cannot be opened now', problem);
  return outForNow(problem)
    ? new SourceOpenFailedError(
        `the source "${name}" cannot be opened now: ${problem.message}`,
        503,
        UNREACHABLE_RETRY_S,
      )
    : new SourceOpenFailedError(`the source "${name}" cannot be opened: ${problem.message}`);
}
