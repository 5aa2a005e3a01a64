/**
 * Running out of a resource of the machine (open files, memory) is a passing state of the server,
 * not a verdict on the data: it is answered 503 with Retry-After naming the resource, never "damaged zip" (the
 * operator would re-export good data) nor 500. Node says it in several ways: an errno code (EMFILE, ENFILE,
 * ENOMEM), or only in a message ("Worker initialization failure: EMFILE").
 */
import { closeSync, openSync } from 'node:fs';

/** Seconds a client is told to wait: long enough for requests under way to finish and give files back. */
export const SHORTAGE_RETRY_S = 2;

const BY_CODE: Record<string, string> = {
  EMFILE: 'open files',
  ENFILE: 'open files (of the whole machine)',
  ENOMEM: 'memory',
  ERR_WORKER_OUT_OF_MEMORY: 'memory',
};

const IN_MESSAGE: [RegExp, string][] = [
  [/\bEMFILE\b|too many open files/i, 'open files'],
  [/\bENFILE\b|file table overflow/i, 'open files (of the whole machine)'],
  [/\bENOMEM\b|cannot allocate memory/i, 'memory'],
  // Our own refusal, wrapped by a caller that kept only its message (an archive's "database cannot be read").
  [/has run out of open files/, 'open files'],
  [/has run out of memory/, 'memory'],
];

/** The resource `error` (or one of its causes) says ran out, if it says so. */
export function shortageOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ResourceShortageError) return e.resource;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && BY_CODE[code] !== undefined) return BY_CODE[code];
    for (const [pattern, resource] of IN_MESSAGE) if (pattern.test(e.message)) return resource;
  }
  return undefined;
}

/** A request refused because the server ran out of `resource` for now. */
export class ResourceShortageError extends Error {
  override name = 'ResourceShortageError';
  readonly status = 503;
  readonly retryAfter = SHORTAGE_RETRY_S;
  constructor(
    readonly resource: string,
    what = 'this request',
  ) {
    super(
      `the server has run out of ${resource} for now and cannot answer ${what}; ask again in ${SHORTAGE_RETRY_S} s (the operator may raise the limit: see docs/operations.md)`,
    );
  }
}

/** `error` as a shortage refusal when it is one, else undefined. */
export function asShortage(error: unknown, what?: string): ResourceShortageError | undefined {
  if (error instanceof ResourceShortageError) return error;
  const resource = shortageOf(error);
  return resource === undefined ? undefined : new ResourceShortageError(resource, what);
}

/**
 * Whether this process is at its limit of open files now: SQLite says only "unable to open database file"
 * whatever the reason, and this tells a full descriptor table from a missing or unreadable file.
 */
export function atFileLimit(): boolean {
  try {
    closeSync(openSync('/dev/null', 'r'));
    return false;
  } catch (error) {
    return shortageOf(error) !== undefined;
  }
}
