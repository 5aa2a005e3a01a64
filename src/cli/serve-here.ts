/** Serving from this process: open the storages, start the HTTP server, stop cleanly on a signal. */
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { openArchive } from '../storage/index.js';
import { openPostgresUrl, openProfile, openSqliteDos, type ProfileOptions } from '../storage/profiles.js';
import { StorageOpenError, type StorageBackend } from '../storage/types.js';
import { announce } from './announce.js';
import { CliError } from './errors.js';
import { exitWithStartFailure, reportOpened, reportServing } from './processes.js';
import { extractionProgress } from './progress.js';
import { shutDownOnSignals } from './shutdown.js';
import type { ServeOptions } from './serve.js';

/** One source on the command line: an archive file, a sqlite_dos folder or a PostgreSQL URL. */
async function openSource(
  source: string,
  options: ServeOptions,
  storage: ProfileOptions & { cacheDir: string },
) {
  if (/^postgres(ql)?:\/\//.test(source)) {
    return openPostgresUrl(source, options.repository, {
      ...storage,
      workers: options.pgPool,
      replicas: options.replicasOf?.[source],
    });
  }
  if (existsSync(source) && statSync(source).isDirectory()) return openSqliteDos(source, storage);
  return openArchive(source, { ...storage, onExtractProgress: extractionProgress(basename(source)) });
}

async function openBackends(files: string[], options: ServeOptions): Promise<StorageBackend[]> {
  const backends: StorageBackend[] = [];
  try {
    const storage = {
      cacheDir: options.cacheDir ?? defaultCacheDir(),
      workers: options.workers,
      queryTimeoutMs: (options.queryTimeout ?? 30) * 1000,
      maxWaiting: options.maxWaiting,
      queryMemoryMb: options.queryMemory,
      replicasOnly: options.replicasOnly,
      onIdleError: (error: Error) =>
        process.stderr.write(`quarry: database session lost: ${error.message}\n`),
      onServerChange: (server: string, up: boolean, problem?: string) =>
        process.stderr.write(
          up
            ? `quarry: database server ${server} answers again; reads go to it\n`
            : `quarry: database server ${server} is out (${problem}); reads go to the others\n`,
        ),
    };
    for (const file of files) backends.push(await openSource(file, options, storage));
    for (const name of options.profile ?? []) {
      const replicas = options.replicasOf?.[`profile:${name}`];
      backends.push(await openProfile(name, { ...storage, workers: options.pgPool, replicas }));
    }
    const names = backends.map((b) => b.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new CliError(`two sources are named "${twice}"; ?profile= could not tell them apart`);
    return backends;
  } catch (error) {
    await Promise.all(backends.map((b) => b.close()));
    if (error instanceof StorageOpenError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * Open the storages and serve them from this process. A serving process of a supervisor reports a failure to
 * start to it (which says it once) instead of printing it.
 */
export async function serveInThisProcess(files: string[], options: ServeOptions, supervised: boolean) {
  try {
    await serve(files, options, supervised);
  } catch (error) {
    if (!supervised) throw error;
    exitWithStartFailure(error instanceof Error ? error.message : String(error));
  }
}

async function serve(files: string[], options: ServeOptions, supervised: boolean) {
  const backends = await openBackends(files, options);
  if (supervised) reportOpened();
  // Loaded after the storages are open, so that the supervisor's other processes start while this one loads it.
  const { buildApp } = await import('../http/app.js');
  const app = await buildApp({
    backends,
    prefix: options.prefix,
    posting: options.posting,
    ui: options.ui,
    logger: options.log,
    logFormat: options.logFormat,
    metrics: options.metrics,
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy,
    cacheMaxAge: options.cacheMaxAge,
    compression: options.compression,
    queryTimeoutMs: (options.queryTimeout ?? 30) * 1000,
    bodyLimit: options.maxBody,
    maxRows: options.maxRows,
    queryLimits: Object.fromEntries(
      Object.entries({ maxVertices: options.maxVertices, maxInList: options.maxInList }).filter(
        ([, v]) => v !== undefined,
      ),
    ),
  });
  // Begun before listening, so that /readyz says "not ready" from the first request it answers.
  const { warmUp } = await import('../ops/warm-up.js');
  void warmUp(backends, (options.queryTimeout ?? 30) * 1000, (backend, error) =>
    process.stderr.write(
      `quarry: the summaries of ${backend.name} were not computed ahead (the first request will): ${error.message}\n`,
    ),
  );
  const host = options.hostname ?? options.host;
  try {
    await app.listen({ host, port: options.port });
  } catch (error) {
    await Promise.all(backends.map((b) => b.close()));
    throw new CliError(`cannot listen on ${host}:${options.port}: ${(error as Error).message}`);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const names = backends.map((b) => b.name);
  if (supervised) reportServing(names);
  else announce(names, options, port, 1);
  shutDownOnSignals(app, backends, (options.shutdownTimeout ?? 10) * 1000);
}
