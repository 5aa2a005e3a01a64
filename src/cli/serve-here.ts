/** Serving from this process: open the storages, start the HTTP server, stop cleanly on a signal. */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { keptGets } from '../http/kept-answers.js';
import { collectGarbage, collectWhenQuiet } from '../util/idle-memory.js';
import { trimHeap } from '../storage/sqlite-extensions.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { DEFAULT_IDLE_MS, defaultFileBudget, fileBudget, processFileLimit } from '../storage/file-budget.js';
import { openArchive } from '../storage/index.js';
import { isLegacyFolder } from '../storage/archive/archive.js';
import { isRemote } from '../storage/archive/remote.js';
import { openPostgresUrl, openProfile, openSqliteDos, type ProfileOptions } from '../storage/profiles.js';
import { StorageOpenError, type StorageBackend } from '../storage/types.js';
import { announce, serverChangeLine } from './announce.js';
import { listenFailure } from './port-check.js';
import { CliError } from './errors.js';
import { exitWithStartFailure, reportOpened, reportServing, sayForAll } from './processes.js';
import { extractionProgress } from './progress.js';
import { shutDownOnSignals } from './shutdown.js';
import { SERVING_RUN, type ServeOptions } from './serve.js';
import { indexEveryCopy } from '../search/index-file.js';

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
  const folder = existsSync(source) && statSync(source).isDirectory();
  // An extracted AiiDA 1.x archive (metadata.json and data.json) is an archive, other folders profiles.
  if (folder && !(await isLegacyFolder(source))) return openSqliteDos(source, storage);
  return openArchive(source, { ...storage, onExtractProgress: extractionProgress(basename(source)) });
}

/** The storage settings of the command's options, for every source. */
function storageSettings(options: ServeOptions) {
  return {
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    workers: options.workers,
    queryTimeoutMs: (options.queryTimeout ?? 30) * 1000,
    maxWaiting: options.maxWaiting,
    queryMemoryMb: options.queryMemory,
    replicasOnly: options.replicasOnly,
    onIdleError: (error: Error) => process.stderr.write(`quarry: database session lost: ${error.message}\n`),
    onServerChange: (server: string, up: boolean, problem?: string, upNow?: number) =>
      process.stderr.write(serverChangeLine(server, up, problem, upNow)),
  };
}

async function openBackends(files: string[], options: ServeOptions): Promise<StorageBackend[]> {
  const backends: StorageBackend[] = [];
  try {
    const storage = storageSettings(options);
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
  // Archives opened on the command line get their search index with their copy, as the catalog's do.
  indexEveryCopy();
  try {
    await serve(files, options, supervised);
  } catch (error) {
    if (!supervised) throw error;
    exitWithStartFailure(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The open-file budget of this process (sources, side tables) from the options: refused when it leaves no room
 * under the process's own limit for client sockets. Caches let go of their memory once every holder is idle.
 */
function boundOpenFiles(options: ServeOptions) {
  const limit = processFileLimit();
  const wanted = options.maxOpenFiles;
  if (wanted !== undefined && (wanted < 4 || (limit !== undefined && wanted > limit - 32))) {
    throw new CliError(
      `--max-open-files ${wanted} must be at least 4 and leave 32 files of this process's open-file limit (${limit ?? 'unknown'}) for sockets; give less, or raise the limit (ulimit -n)`,
    );
  }
  fileBudget.configure({
    limit: wanted ?? defaultFileBudget(limit),
    idleMs: (options.idleClose ?? DEFAULT_IDLE_MS / 1000) * 1000,
  });
  fileBudget.onIdle(() => {
    keptGets.clear();
    collectGarbage();
    trimHeap();
  });
}

/** A folder that is not itself a core.sqlite_dos storage: the sources below it are served (a portal). */
function isSourceFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory() && !existsSync(join(path, 'database.sqlite'));
}

async function serve(files: string[], options: ServeOptions, supervised: boolean) {
  boundOpenFiles(options);
  const folders = files.filter(isSourceFolder);
  // Archives at URLs are opened on their first request, as a portal's, and opened anew when replaced there.
  const urls = files.filter((f) => isRemote(f));
  const backends = await openBackends(
    files.filter((f) => !folders.includes(f) && !urls.includes(f)),
    options,
  );
  const portal =
    folders.length > 0 || urls.length > 0 || options.sources !== undefined
      ? await startPortal(folders, urls, backends, options)
      : undefined;
  if (supervised) reportOpened();
  // Loaded after the storages are open, so that the supervisor's other processes start while this one loads it.
  const { buildApp } = await import('../server/app.js');
  const app = await buildApp({
    ...(portal === undefined ? { backends } : { catalog: portal.catalog }),
    prefix: options.prefix,
    posting: options.posting,
    ui: options.ui,
    logger: options.log,
    logFormat: options.logFormat,
    metrics: options.metrics,
    optimadeDefault: portal === undefined ? optimadeDefaultOf(backends, options.optimadeDefault) : undefined,
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy,
    cacheMaxAge: options.cacheMaxAge,
    keptAnswers: keptAnswers(files, options),
    compression: options.compression,
    queryTimeoutMs: (options.queryTimeout ?? 30) * 1000,
    bodyLimit: options.maxBody,
    maxRows: options.maxRows,
    exports: { maxNodes: options.maxExportNodes, maxBytes: options.maxExportBytes },
    queryLimits: Object.fromEntries(
      Object.entries({ maxVertices: options.maxVertices, maxInList: options.maxInList }).filter(
        ([, v]) => v !== undefined,
      ),
    ),
  });
  // Begun before listening, so that /readyz says "not ready" from the first request it answers; summaries an
  // earlier run kept on disk are read before, so that a restart on unchanged data is ready from its first answer.
  const { warmUp } = await import('../ops/warm-up.js');
  await warmUp(backends, (options.queryTimeout ?? 30) * 1000, (backend, error) =>
    process.stderr.write(
      `quarry: the summaries of ${backend.name} were not computed ahead (the first request will): ${error.message}\n`,
    ),
  );
  const host = options.hostname ?? options.host;
  try {
    await app.listen({ host, port: options.port });
  } catch (error) {
    await (portal === undefined ? Promise.all(backends.map((b) => b.close())) : portal.close());
    throw new CliError(listenFailure(host, options.port, error as NodeJS.ErrnoException));
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const names = portal === undefined ? backends.map((b) => b.name) : portal.catalog.names();
  if (supervised) reportServing(names);
  else announce(names, options, port, 1);
  const held = portal === undefined ? backends : [portal];
  shutDownOnSignals(app, held, (options.shutdownTimeout ?? 10) * 1000);
  collectWhenQuiet(undefined, undefined, trimHeap);
  if (portal !== undefined) {
    portal.watcher.watch(options.watchInterval ?? 5);
    // SIGHUP: the sources file (and the folders) are read again; the supervisor passes the signal on.
    process.on('SIGHUP', () => void portal.watcher.reload());
  }
}

/**
 * Whole answers kept once for the machine: a file of the cache folder that every serving process of this
 * server opens, named by what it serves and how (another server's answers are not this one's).
 */
function keptAnswers(files: string[], options: ServeOptions) {
  const mib = options.keptAnswers ?? 256;
  if (mib === 0) return false as const;
  const serving = createHash('sha256')
    .update(JSON.stringify([files, options]))
    .digest('hex')
    .slice(0, 16);
  const dir = join(options.cacheDir ?? defaultCacheDir(), 'kept-answers');
  const run = process.env[SERVING_RUN] ?? randomUUID();
  return { file: join(dir, `${serving}.sqlite`), bytes: mib * 1024 * 1024, scope: run };
}

/** Folders and a sources file: a catalog of sources opened on demand, beside those opened at start. */
async function startPortal(
  folders: string[],
  urls: string[],
  backends: StorageBackend[],
  options: ServeOptions,
) {
  const [
    { SourceCatalog },
    { sourceOpener },
    { Portal },
    { reservedNames },
    { SourcesFileError },
    { remoteSpec },
    { SharedFacts },
  ] = await Promise.all([
    import('../sources/catalog.js'),
    import('../sources/open.js'),
    import('../sources/portal.js'),
    import('../sources/names.js'),
    import('../sources/sources-file.js'),
    import('../sources/remote.js'),
    import('../sources/shared-facts.js'),
  ]);
  const say = (line: string) => process.stderr.write(`quarry: ${line}\n`);
  // Every SQLite source of the portal runs its queries on these few processes, whatever the number of sources.
  const { SharedQueryProcesses } = await import('../storage/shared-query-processes.js');
  const shared = new SharedQueryProcesses({
    size: options.workers,
    heapMb: options.queryMemory,
    maxWaiting: options.maxWaiting,
  });
  const opener = sourceOpener({
    ...storageSettings(options),
    pgPool: options.pgPool,
    sharedProcesses: shared,
  });
  const catalog = new SourceCatalog(opener, {
    maxOpen: options.maxOpen,
    facts: new SharedFacts(
      join(storageSettings(options).cacheDir, 'source-facts'),
      process.env[SERVING_RUN] ?? randomUUID(),
    ),
    onEvent: (event) => {
      if (event.type === 'failed') say(`source ${event.name} cannot be opened: ${event.error.message}`);
      else if (event.type === 'replaced') say(`source ${event.name} was replaced at its origin; served anew`);
      else if (options.log)
        say(
          event.type === 'opened'
            ? `source ${event.name} opened in ${Math.round(event.ms)} ms`
            : `source ${event.name} closed`,
        );
    },
  });
  for (const backend of backends) catalog.pin(backend);
  const watcher = new Portal(catalog, {
    optimadeDefault: options.optimadeDefault,
    folders,
    specs: urls.map((url) => remoteSpec(url)),
    sourcesFile: options.sources,
    reserved: reservedNames(options.prefix),
    taken: backends.map((b) => b.name),
    // Every serving process sees the same changes: each is said once, by the supervisor.
    log: sayForAll,
  });
  try {
    await watcher.start();
  } catch (error) {
    await Promise.all(backends.map((b) => b.close()));
    await shared.close();
    if (
      error instanceof SourcesFileError ||
      ['SourceNameError', 'EmptyFolderError', 'FolderScanError'].includes((error as Error).name)
    )
      throw new CliError((error as Error).message);
    throw error;
  }
  return {
    catalog,
    watcher,
    close: async () => {
      watcher.stop();
      await catalog.close();
      await shared.close();
    },
  };
}

/** `--optimade-default` among the sources opened at start: a name none has is a mistake said at once. */
function optimadeDefaultOf(backends: { name: string }[], name: string | undefined): string | undefined {
  if (name !== undefined && !backends.some((b) => b.name === name))
    throw new CliError(
      `--optimade-default names ${name}, which is not a source served here; the sources: ${backends.map((b) => b.name).join(', ')}`,
    );
  return name;
}
