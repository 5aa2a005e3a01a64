/** What every route handler shares: the data being served and the server's settings. */
import { DEFAULT_LIMITS, type QueryLimits } from '../query/index.js';
import { SourceCatalog } from '../sources/catalog.js';
import { reservedNames } from '../sources/names.js';
import type { StorageBackend } from '../storage/types.js';
import { parsePublicUrl, type OriginOptions } from './origin.js';

/** The largest answer by default (`--max-rows`): rows of a posted query, neighbours of a tree each way. */
export const DEFAULT_MAX_ROWS = 10_000;

export interface AppOptions {
  /**
   * Storages already open, served as they are; the first is the default, the others are chosen with
   * `?profile=NAME` or by path (`/<name>/api/v4/`). Given with `catalog`, they are added to it, pinned.
   */
  backends?: StorageBackend[];
  /** The sources served, opened on demand (src/sources/); the first answers at the plain prefix. */
  catalog?: SourceCatalog;
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
  /** Most rows of one posted QueryBuilder answer, and neighbours of a links tree each way (default 10,000). */
  maxRows?: number;
  /** Limits on how long a connection may take (src/server/app.ts); the defaults suit a server open to the public. */
  timeouts?: Partial<ServerTimeouts>;
  /** `max-age` of archive answers in seconds (default 300); 0 makes them `no-cache`. See src/ops/etag.ts. */
  cacheMaxAge?: number;
  /** gzip and brotli for answers that are worth it (default true). See src/ops/compression.ts. */
  compression?: boolean;
  /** Serve the web explorer at `/` (default true; `--no-ui` turns it off). */
  ui?: boolean;
  /** Log every request (one line each, src/ops/request-log.ts). */
  logger?: boolean;
  logFormat?: 'json' | 'pretty';
  /** Where request log lines go (default stdout). */
  logDestination?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Answer GET /metrics and count what it shows (src/ops/metrics.ts). */
  metrics?: boolean;
  /**
   * Whole GET answers kept while their data is unchanged (src/ops/kept-gets.ts): in `bytes` (default 64 MiB)
   * of this process's memory, or of `file`, read by every serving process of the machine that gives the same
   * `scope` (one start of a server: answers of an earlier one are not used). `false`: none.
   */
  keptAnswers?: false | { bytes?: number; file?: string; scope?: string };
  /** The source answering the plain `/optimade/v1/` and the OPTIMADE index's default (default: the first). */
  optimadeDefault?: string;
  /** Bounds of `.aiida` exports (src/export/). */
  exports?: ExportBounds;
  /** Awaited before each OPTIMADE side table's symmetry pass starts: tests hold the pass with it. */
  optimadeSymmetryGate?: () => Promise<void>;
}

/** Bounds of `.aiida` exports: nodes and bytes of one, how many at once, their time limits. */
export interface ExportBounds {
  /** Most nodes of one export (`--max-export-nodes`, default 100,000). */
  maxNodes?: number;
  /** Most bytes of one export's files and nodes' data (attributes, extras, repository metadata) (`--max-export-bytes`, default 4 GiB). */
  maxBytes?: number;
  /** Exports written at once (default 2) and waiting for a turn (default 8, for at most `waitMs`, 30 s). */
  running?: number;
  waiting?: number;
  waitMs?: number;
  /** Time the reads of one export may take, in ms (default 10 minutes). */
  timeLimitMs?: number;
}

/** Limits on how long a connection may take, in ms; src/server/app.ts says why each is what it is. */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  checkMs: number;
  keepAliveMs: number;
  silenceMs: number;
}

export interface AppContext {
  /** Every source served, open or not. */
  catalog: SourceCatalog;
  /** The storages open now (health, metrics); a source outside it is opened by its first request. */
  readonly backends: StorageBackend[];
  /** First path segments that are the server's own routes, never a source's name. */
  reserved: ReadonlySet<string>;
  prefix: string;
  posting: boolean;
  limitDefault: number;
  perpageDefault: number;
  queryLimits: QueryLimits;
  queryTimeoutMs: number;
  maxRows: number;
  origin: OriginOptions;
  optimadeSymmetryGate?: () => Promise<void>;
}

export function contextFrom(options: AppOptions): AppContext {
  const catalog = options.catalog ?? SourceCatalog.of(options.backends ?? []);
  if (options.catalog !== undefined) for (const backend of options.backends ?? []) catalog.pin(backend);
  if (catalog.size === 0 && !catalog.dynamic) throw new Error('buildApp needs at least one storage backend');
  if (options.optimadeDefault !== undefined) catalog.optimadeDefault = options.optimadeDefault;
  const prefix = (options.prefix ?? '/api/v4').replace(/\/+$/, '');
  return {
    catalog,
    get backends() {
      return catalog.openBackends();
    },
    reserved: reservedNames(prefix),
    prefix,
    posting: options.posting ?? true,
    limitDefault: options.limitDefault ?? 400,
    perpageDefault: options.perpageDefault ?? 20,
    queryLimits: { ...DEFAULT_LIMITS, ...options.queryLimits },
    queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
    maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
    origin: {
      publicBase: options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl),
      trustProxy: options.trustProxy ?? false,
    },
    optimadeSymmetryGate: options.optimadeSymmetryGate,
  };
}
