/**
 * What can go wrong with an archive at an http(s) URL, as errors the server answers with (src/http/failures.ts
 * keeps 502 and 503): 503 with Retry-After where asking again will help (the server is down, the file was
 * replaced and is opened anew), 502 where it will not until the server is fixed (no range requests, no such file).
 */

/**
 * A URL as messages and the index show it: without a password or a query string, which may hold a token (a
 * presigned object store URL).
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    if (u.search !== '') u.search = '?…';
    return u.toString();
  } catch {
    return url;
  }
}

export class RemoteArchiveError extends Error {
  override name = 'RemoteArchiveError';
  constructor(
    message: string,
    readonly status: 502 | 503,
    /** Seconds, for 503. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The file is no longer the one opened: the source reopens it on its next request. */
export class RemoteChangedError extends RemoteArchiveError {
  override name = 'RemoteChangedError';
  constructor(url: string, what: string) {
    super(
      `${shownUrl(url)} was replaced on its server while it was read (${what}); nothing of it was answered: ask again and the new file is served`,
      503,
      1,
    );
  }
}

/** Seconds to come back after a server that could not be reached. */
export const UNREACHABLE_RETRY_S = 10;

/** A fetch() that failed before any answer: the server is down, refuses, or is too slow. */
export function unreachable(url: string, error: unknown): RemoteArchiveError {
  if (error instanceof RemoteArchiveError) return error;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const name = (error as Error).name;
  const why =
    name === 'TimeoutError' || name === 'AbortError'
      ? 'it did not answer in time'
      : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new RemoteArchiveError(
    `${shownUrl(url)} cannot be reached (${why}); try again later`,
    503,
    UNREACHABLE_RETRY_S,
  );
}

/** An answer that is neither the bytes asked for nor a sign that the file changed. */
export function badStatus(url: string, status: number, statusText: string): RemoteArchiveError {
  if (status >= 500 || status === 429 || status === 408) {
    return new RemoteArchiveError(
      `${shownUrl(url)}: its server answered ${status} ${statusText}; try again later`,
      503,
      UNREACHABLE_RETRY_S,
    );
  }
  return new RemoteArchiveError(
    `${shownUrl(url)}: its server answered ${status} ${statusText} instead of the archive; check the URL`,
    502,
  );
}

export function noRanges(url: string): RemoteArchiveError {
  return new RemoteArchiveError(
    `${shownUrl(url)}: its server does not answer range requests (it sent the whole file, 200 instead of 206); Quarry reads remote archives by range: serve the file from a server that supports them (nginx, Apache, any object store)`,
    502,
  );
}
