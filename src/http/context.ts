/** What every route handler shares: the data being served and the server's settings. */
import { DEFAULT_LIMITS, type QueryLimits } from '../query/index.js';
import type { StorageBackend } from '../storage/types.js';
import { parsePublicUrl, type OriginOptions } from './origin.js';

export interface AppOptions {
  /** The storages served; the first is the default, the others are chosen with `?profile=NAME`. */
  backends: StorageBackend[];
  /** URL prefix of the API (default `/api/v4`). */
  prefix?: string;
  /** Whether POST /querybuilder/ is offered (default true). */
  posting?: boolean;
  /** Default and maximum rows per answer (default 400, as the reference). */
  limitDefault?: number;
  /** Default page size of `/page/` requests (default 20). */
  perpageDefault?: number;
  /** Largest request body accepted, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Bounds on POSTed QueryBuilder dictionaries (vertices, IN-list length, projections). */
  queryLimits?: Partial<QueryLimits>;
  /** Base URL written into `url`, `url_root` and `Link` instead of the request's scheme and host. */
  publicUrl?: string;
  /** Read `X-Forwarded-Proto` and `X-Forwarded-Host` (only behind a proxy that sets them). */
  trustProxy?: boolean;
  /**
   * Time limit of one request's queries, in milliseconds (default 30 s); an open connection may also stay
   * silent that long and more.
   */
  queryTimeoutMs?: number;
  /** Most rows of one posted QueryBuilder answer (default 10,000). */
  maxRows?: number;
  /** Limits on how long a connection may take (app.ts); the defaults suit a server open to the public. */
  timeouts?: Partial<ServerTimeouts>;
  logger?: boolean;
  /** Serve the web explorer at `/` (default true; `--no-ui` turns it off). */
  ui?: boolean;
}

/** Limits on how long a connection may take, in ms; app.ts says why each is what it is. */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  checkMs: number;
  keepAliveMs: number;
  silenceMs: number;
}

export interface AppContext {
  backends: StorageBackend[];
  prefix: string;
  posting: boolean;
  limitDefault: number;
  perpageDefault: number;
  queryLimits: QueryLimits;
  queryTimeoutMs: number;
  maxRows: number;
  origin: OriginOptions;
}

export function contextFrom(options: AppOptions): AppContext {
  if (options.backends.length === 0) throw new Error('buildApp needs at least one storage backend');
  return {
    backends: options.backends,
    prefix: (options.prefix ?? '/api/v4').replace(/\/+$/, ''),
    posting: options.posting ?? true,
    limitDefault: options.limitDefault ?? 400,
    perpageDefault: options.perpageDefault ?? 20,
    queryLimits: { ...DEFAULT_LIMITS, ...options.queryLimits },
    queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
    maxRows: options.maxRows ?? 10_000,
    origin: {
      publicBase: options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl),
      trustProxy: options.trustProxy ?? false,
    },
  };
}
