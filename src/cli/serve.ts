import { randomUUID } from 'node:crypto';
/**
 * `quarry serve`: serve the sources from this process, or supervise serving processes (--processes). The
 * supervisor serves nothing, so the serving code (HTTP, storages, exporters) is loaded only where it runs.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { announce } from './announce.js';
import { stopWithNpm } from './parent-watch.js';
import { refuseUnusablePort } from './port-check.js';
import { isServingProcess, superviseProcesses } from './processes.js';

export interface ServeOptions {
  host: string;
  hostname?: string;
  port: number;
  prefix: string;
  posting: boolean;
  /** Serve the web explorer at `/` (`--no-ui` makes it false). */
  ui?: boolean;
  cacheDir?: string;
  /** Checked and normalised by the command (`scheme://host[:port][/path]`, no trailing slash). */
  publicUrl?: string;
  trustProxy?: boolean;
  log?: boolean;
  /** Cache-Control max-age of archive answers, in seconds. */
  cacheMaxAge?: number;
  /** MiB of whole answers kept for the machine, in a file of the cache folder (0: none). */
  keptAnswers?: number;
  /** false with --no-compression. */
  compression?: boolean;
  /** One line per request as JSON, or pretty for people (the default on a terminal). */
  logFormat?: 'json' | 'pretty';
  /** Answer GET /metrics (Prometheus). */
  metrics?: boolean;
  /** Seconds that requests under way may take to finish once a stop is asked for. */
  shutdownTimeout?: number;
  workers?: number;
  queryTimeout?: number;
  maxWaiting?: number;
  maxRows?: number;
  maxExportNodes?: number;
  maxExportBytes?: number;
  queryMemory?: number;
  maxBody?: number;
  maxVertices?: number;
  maxInList?: number;
  profile?: string[];
  repository?: string;
  pgPool?: number;
  /** Read replicas by PostgreSQL source (its URL, or `profile:NAME`), from the `--replica` options. */
  replicasOf?: Record<string, string[]>;
  replicasOnly?: boolean;
  /** A YAML file naming the sources of a portal (src/sources/sources-file.ts). */
  sources?: string;
  /** The source of the plain `/optimade/v1/` (else the sources file's `optimade_default`, else the first). */
  optimadeDefault?: string;
  /** Most sources open at once per serving process; the least recently used is closed for another. */
  maxOpen?: number;
  /** Files sources and side tables may keep open between requests, per serving process (src/storage/file-budget.ts). */
  maxOpenFiles?: number;
  /** Seconds a source or side table no request uses stays open (0: until room is needed). */
  idleClose?: number;
  /** Seconds between two looks at the served folders for added, removed and replaced sources (0: never). */
  watchInterval?: number;
  /** HTTP server processes sharing the port (default 1 here; the command defaults to the cores). */
  processes?: number;
}

export async function runServe(files: string[], options: ServeOptions) {
  if (isServingProcess()) {
    const { serveInThisProcess } = await import('./serve-here.js');
    return serveInThisProcess(JSON.parse(process.env[SOURCES] ?? '[]'), options, true);
  }
  stopWithNpm();
  await refuseUnusablePort(options.hostname ?? options.host, options.port);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const profiles = options.profile ?? [];
  if (files.length === 0 && profiles.length === 0 && options.sources === undefined) {
    process.stderr.write('quarry: no archive given; serving the demo archive (generated on first run)\n');
    const { ensureDemoArchive } = await import('../generate/index.js');
    const display = (await import('./progress.js')).progressDisplay('generating the demo archive', 'nodes');
    files = [await ensureDemoArchive(cacheDir, (done, total) => display.update(done, total))];
    display.stop();
  }
  const processes = options.processes ?? 1;
  if (processes <= 1) return (await import('./serve-here.js')).serveInThisProcess(files, options, false);
  const { port, names } = await superviseProcesses(
    processes,
    { [SOURCES]: JSON.stringify(files), [SERVING_RUN]: randomUUID() },
    {
      shutdownMs: (options.shutdownTimeout ?? 10) * 1000,
      hangUp:
        options.sources !== undefined ||
        files.some(
          (f) => existsSync(f) && statSync(f).isDirectory() && !existsSync(join(f, 'database.sqlite')),
        ),
    },
  );
  announce(names, options, port, processes);
}

/**
 * A name of this start of the server, the same in all its serving processes: their kept answers are shared
 * within it, never with another start's (a live database may have changed while no server ran).
 */
export const SERVING_RUN = 'QUARRY_SERVING_RUN';

/** The sources a supervisor resolved, for the serving processes it starts. */
const SOURCES = 'QUARRY_SERVE_SOURCES';
