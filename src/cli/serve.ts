/**
 * `quarry serve`: serve the sources from this process, or supervise serving processes (--processes). The
 * supervisor serves nothing, so the serving code (HTTP, storages, exporters) is loaded only where it runs.
 */
import { defaultCacheDir } from '../storage/cache-dir.js';
import { announce } from './announce.js';
import { isServingProcess, superviseProcesses } from './processes.js';

export interface ServeOptions {
  host: string;
  hostname?: string;
  port: number;
  prefix: string;
  posting: boolean;
  cacheDir?: string;
  /** Checked and normalised by the command (`scheme://host[:port][/path]`, no trailing slash). */
  publicUrl?: string;
  trustProxy?: boolean;
  log?: boolean;
  workers?: number;
  queryTimeout?: number;
  maxWaiting?: number;
  maxRows?: number;
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
  /** HTTP server processes sharing the port (default 1 here; the command defaults to the cores). */
  processes?: number;
}

export async function runServe(files: string[], options: ServeOptions) {
  if (isServingProcess()) {
    const { serveInThisProcess } = await import('./serve-here.js');
    return serveInThisProcess(JSON.parse(process.env[SOURCES] ?? '[]'), options, true);
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const profiles = options.profile ?? [];
  if (files.length === 0 && profiles.length === 0) {
    process.stderr.write('quarry: no archive given; serving the demo archive (generated on first run)\n');
    const { ensureDemoArchive } = await import('../generate/index.js');
    files = [await ensureDemoArchive(cacheDir)];
  }
  const processes = options.processes ?? 1;
  if (processes <= 1) return (await import('./serve-here.js')).serveInThisProcess(files, options, false);
  const { port, names } = await superviseProcesses(processes, { [SOURCES]: JSON.stringify(files) });
  announce(names, options, port, processes);
}

/** The sources a supervisor resolved, for the serving processes it starts. */
const SOURCES = 'QUARRY_SERVE_SOURCES';
