/** Errors that become HTTP answers `{"message": ...}` with a status chosen where they are raised. */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra top-level keys of the answer body (e.g. the endpoint listing of a 404). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The reference's RestValidationError: a request that is well-formed but inconsistent (400). */
export const badRequest = (message: string) => new HttpError(400, message);

/**
 * The reference's RestInputValidationError, which it answers with 404 (kept for compatibility:
 * clients branch on it): bad ids, pages out of range, query-string errors.
 */
export const inputError = (message: string) => new HttpError(404, message);

export const notImplemented = (message: string) => new HttpError(501, message);
