/**
 * Errors as answers, and the log of the server's own failures. A 5xx tells the client to see the server log,
 * so each one is written there, once, with its cause, whether or not requests are logged (`--log`).
 */
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../rest/errors.js';

export function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof HttpError)
    return { status: error.status, body: { message: error.message, ...error.extra } };
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ??
    (error as { statusCode?: unknown }).statusCode;
  const message = error instanceof Error ? error.message : String(error);
  // 4xx for what the client can fix; 503 for a query stopped at the time limit or a database that is down;
  // 502 for data the storage gave back damaged.
  if (typeof status === 'number' && ((status >= 400 && status < 500) || status === 502 || status === 503)) {
    return { status, body: { message } };
  }
  return {
    status: 500,
    body: { message: 'Internal error while answering this request; see the server log.' },
  };
}

/** Where failure lines go; replaced by tests. */
let sink = (line: string): void => void process.stderr.write(line);

export function setFailureSink(write: (line: string) => void): () => void {
  const before = sink;
  sink = write;
  return () => (sink = before);
}

/**
 * One JSON line on stderr per failure: what was asked, what was answered, and the error with its stack and
 * causes (a stack's line breaks are escaped, so the line stays one line). The request id matches `--log`'s.
 */
export function logFailure(request: FastifyRequest, status: number | undefined, error: unknown): void {
  const line = {
    time: new Date().toISOString(),
    level: 'error',
    msg: status === undefined ? 'answer cut short' : 'request failed',
    reqId: request.id,
    method: request.method,
    // As asked: a source's path (/<name>/...) is routed without its name (mount.ts).
    url: (request.raw as { originalUrl?: string }).originalUrl ?? request.raw.url,
    ...(status === undefined ? {} : { status }),
    err: described(error, 0),
  };
  sink(`${JSON.stringify(line)}\n`);
}

function described(error: unknown, depth: number): unknown {
  if (!(error instanceof Error)) return { message: String(error) };
  const cause = (error as { cause?: unknown }).cause;
  return {
    // Subclasses that keep the name `Error` (HttpError) are told apart by their class.
    type: error.name === 'Error' ? error.constructor.name : error.name,
    message: error.message,
    ...((error as { code?: unknown }).code === undefined ? {} : { code: (error as { code?: unknown }).code }),
    stack: error.stack,
    // A cause that causes itself must not loop.
    ...(cause === undefined || depth >= 4 ? {} : { cause: described(cause, depth + 1) }),
  };
}
