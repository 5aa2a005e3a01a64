/**
 * Errors as answers, and the log of the server's own failures. A 5xx tells the client to see the server log,
 * so each one is written there, with its cause, whether or not requests are logged (`--log`): a bug's at once
 * with its stack, the expected ones of load and outages (503) summarised.
 */
import type { FastifyRequest } from 'fastify';
import { WarningSummary } from '../util/warning-summary.js';
import { HttpError } from '../rest/errors.js';
import { SourceOpenFailedError } from '../sources/refusals.js';
import { asShortage } from '../storage/shortage.js';

export function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof HttpError)
    return { status: error.status, body: { message: error.message, ...error.extra } };
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ??
    (error as { statusCode?: unknown }).statusCode;
  const message = error instanceof Error ? error.message : String(error);
  // Out of open files or memory (a worker or a file that could not be opened): a 503 that says which, whatever
  // status the error was given on its way up ("damaged zip" is never a verdict the server may give on that).
  const shortage = asShortage(error);
  if (shortage !== undefined) {
    // The error handler sends the Retry-After an error carries.
    if (error instanceof Error) Object.assign(error, { retryAfter: shortage.retryAfter });
    return { status: 503, body: { message: shortage.message } };
  }
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
let warnings = new WarningSummary((line) => sink(line));

export function setFailureSink(write: (line: string) => void): () => void {
  const before = sink;
  const beforeWarnings = warnings;
  sink = write;
  warnings = new WarningSummary((line) => sink(line));
  return () => {
    warnings.flush();
    sink = before;
    warnings = beforeWarnings;
  };
}

/** Write the counts of summarised warnings now (tests; a server shutting down). */
export function flushWarnings(): void {
  warnings.flush();
}

/**
 * One JSON line on stderr per failure: what was asked, what was answered, and the error with its stack and
 * causes (a stack's line breaks are escaped, so the line stays one line). The request id matches `--log`'s.
 * A 503 (the server busy, a query stopped at its limit, a database that is down) is expected under load and
 * in an outage and says nothing new the thousandth time: a warning without a stack, summarised per cause. So
 * is a source that cannot be opened (502): the catalog said why once, and every request to it fails alike.
 */
export function logFailure(request: FastifyRequest, status: number | undefined, error: unknown): void {
  if (status === 503 || error instanceof SourceOpenFailedError) {
    const type = typeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    warnings.note(`${type} ${shapeOf(message)}`, {
      msg: 'request refused or stopped',
      reqId: request.id,
      method: request.method,
      url: request.raw.url,
      status,
      err: { type, message },
    });
    return;
  }
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

/** A message without its numbers (counts, seconds): refusals of one kind share one cause. */
function shapeOf(message: string): string {
  return message.replace(/\d+(\.\d+)?/g, '#').slice(0, 200);
}

/** Subclasses that keep the name `Error` (HttpError) are told apart by their class. */
function typeOf(error: unknown): string {
  if (!(error instanceof Error)) return 'Error';
  return error.name === 'Error' ? error.constructor.name : error.name;
}

function described(error: unknown, depth: number): unknown {
  if (!(error instanceof Error)) return { message: String(error) };
  const cause = (error as { cause?: unknown }).cause;
  return {
    type: typeOf(error),
    message: error.message,
    ...((error as { code?: unknown }).code === undefined ? {} : { code: (error as { code?: unknown }).code }),
    stack: error.stack,
    // A cause that causes itself must not loop.
    ...(cause === undefined || depth >= 4 ? {} : { cause: described(cause, depth + 1) }),
  };
}
