/**
 * The explorer's only way to its data: the public v4 API of the server it is served by, or of the one `?api=`
 * names. Every failure becomes an ApiError whose message a person can act on.
 */

export type FailureKind = 'not-found' | 'refused' | 'server' | 'down' | 'timeout';

export class ApiError extends Error {
  /** The HTTP status; undefined when no answer came (server down, time limit). */
  status: number | undefined;
  kind: FailureKind;
  constructor(message: string, status: number | undefined, kind?: FailureKind) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.kind = kind ?? kindOf(status);
  }
}

function kindOf(status: number | undefined): FailureKind {
  if (status === undefined) return 'down';
  if (status === 404) return 'not-found';
  if (status === 504 || status === 408) return 'timeout';
  return status >= 500 ? 'server' : 'refused';
}

export interface ApiAnswer<T> {
  data: T;
  totalCount?: number;
  raw: unknown;
}

export interface Api {
  /** GET `path` (relative to the v4 prefix, e.g. `/nodes/<uuid>/contents/attributes/`) and its `data`. */
  get<T>(path: string, query?: string, init?: { signal?: AbortSignal }): Promise<ApiAnswer<T>>;
  /** POST a querybuilder dictionary; its answer's `data`. */
  query<T>(body: unknown, init?: { signal?: AbortSignal }): Promise<ApiAnswer<T>>;
  /** The absolute URL of `path` (for links and downloads), with the profile. */
  url(path: string, query?: string): string;
  /** The `?profile=` the explorer asks for; undefined for the server's default source. */
  profile?: string;
  /** The absolute base URL of the API, without a trailing slash. */
  base: string;
}

export interface ApiOptions {
  /** Absolute base URL of the v4 API, e.g. `http://127.0.0.1:5000/api/v4`. */
  base: string;
  profile?: string;
  /** Longest wait for an answer before the request is given up (the server's own limit is 30 s by default). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** `a=1` and `b=2` joined as a query string, empty parts left out. */
export function joinQuery(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined && p !== '').join('&');
}

export function createApi(options: ApiOptions): Api {
  const base = options.base.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 60_000;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const profile = options.profile === '' ? undefined : options.profile;
  // Quoted: a bare value of the v4 query language is a name, and source names hold dots (`arithmetic.add`).
  const profileQuery =
    profile === undefined ? undefined : `profile=${encodeURIComponent(JSON.stringify(profile))}`;

  const url = (path: string, query?: string) => {
    const q = joinQuery(query, profileQuery);
    return `${base}${path.startsWith('/') ? path : `/${path}`}${q === '' ? '' : `?${q}`}`;
  };

  async function send<T>(target: string, init: RequestInit, signal?: AbortSignal): Promise<ApiAnswer<T>> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const onAbort = () => timeout.abort();
    signal?.addEventListener('abort', onAbort);
    let response: Response;
    try {
      response = await doFetch(target, { ...init, signal: timeout.signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (timeout.signal.aborted) {
        throw new ApiError(
          `No answer from ${base} within ${Math.round(timeoutMs / 1000)} s (time limit).`,
          undefined,
          'timeout',
        );
      }
      throw new ApiError(
        `The server at ${base} could not be reached (is it still running?): ${(error as Error).message}`,
        undefined,
        'down',
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    let body: unknown;
    const text = await response.text();
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const said = (body as { message?: unknown } | undefined)?.message;
      const words =
        typeof said === 'string' && said !== '' ? said : text.slice(0, 200) || response.statusText;
      // Quarry answers 503 both for a query stopped at its time limit and for a database that is down.
      const kind = response.status === 503 && /time limit/i.test(words) ? 'timeout' : undefined;
      throw new ApiError(`${response.status}: ${words}`, response.status, kind);
    }
    if (body === undefined || typeof body !== 'object' || body === null || !('data' in body)) {
      throw new ApiError(
        `The answer of ${target} is not a v4 API answer (no JSON "data").`,
        response.status,
        'server',
      );
    }
    const total = response.headers.get('X-Total-Count');
    return {
      data: (body as { data: T }).data,
      totalCount: total === null || total === '' ? undefined : Number(total),
      raw: body,
    };
  }

  return {
    base,
    profile,
    url,
    get: (path, query, init) =>
      send(url(path, query), { headers: { Accept: 'application/json' } }, init?.signal),
    query: (body, init) =>
      send(
        url('/querybuilder/'),
        { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
        init?.signal,
      ),
  };
}
