/** Refusals of a source's requests that name the source, keeping what the storage said about coming back. */

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
