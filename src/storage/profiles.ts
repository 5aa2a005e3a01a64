/**
 * Live AiiDA profiles: the profile's entry in AiiDA's config.json names its storage (core.psql_dos: a
 * PostgreSQL database and a repository URI; core.sqlite_dos: a folder with database.sqlite and container/).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openContainer } from './disk-objectstore.js';
import { SqlitePool } from './sqlite-pool.js';
import { StorageOpenError, type QuerySettings, type StorageBackend } from './types.js';

export interface ProfileOptions extends QuerySettings {
  onIdleError?: (error: Error) => void;
  /** Read replicas of a PostgreSQL source (postgres:// URLs), besides those of its profile's configuration. */
  replicas?: string[];
  /** Reads to the replicas only, while one is up. */
  replicasOnly?: boolean;
  /** Told when a database server of a source is taken out or put back. */
  onServerChange?: (server: string, up: boolean, problem?: string, upNow?: number) => void;
  /** Where Quarry keeps what it derives: a PostgreSQL source's summaries go to its `summaries/` folder. */
  cacheDir?: string;
}

interface ProfileEntry {
  storage?: { backend?: string; config?: Record<string, unknown> };
}

/** Where AiiDA keeps its configuration: `$AIIDA_PATH/.aiida/config.json`, else `~/.aiida/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.AIIDA_PATH;
  if (base) {
    const folder = base.endsWith('.aiida') ? base : join(base, '.aiida');
    return join(folder, 'config.json');
  }
  return join(homedir(), '.aiida', 'config.json');
}

export async function openProfile(
  name: string,
  options: ProfileOptions = {},
  file = configPath(),
): Promise<StorageBackend> {
  if (!existsSync(file)) {
    throw new StorageOpenError(
      `no AiiDA configuration at ${file}; set AIIDA_PATH to the folder that holds .aiida/config.json`,
    );
  }
  let config: { profiles?: Record<string, ProfileEntry> };
  try {
    config = JSON.parse(readFileSync(file, 'utf8')) as typeof config;
  } catch (error) {
    throw new StorageOpenError(`${file} is not valid JSON (${(error as Error).message})`);
  }
  const profiles = config.profiles ?? {};
  const profile = profiles[name];
  if (!profile) {
    const names = Object.keys(profiles).join(', ') || '(none)';
    throw new StorageOpenError(`${file} has no profile "${name}"; its profiles: ${names}`);
  }
  const backend = profile.storage?.backend;
  const storage = profile.storage?.config ?? {};
  if (backend === 'core.psql_dos') {
    const repository = repositoryFolder(storage.repository_uri, name);
    const { openPostgres } = await postgres();
    const configured = profileReplicas(storage.quarry_replicas, name, file);
    return openPostgres(postgresUrl(storage), await openContainer(join(repository, 'container')), {
      ...postgresSettings(options),
      name,
      replicas: [...configured, ...(options.replicas ?? [])],
    });
  }
  if (options.replicas?.length) {
    throw new StorageOpenError(
      `profile "${name}" is not a PostgreSQL profile: it has no replicas to read from`,
    );
  }
  if (backend === 'core.sqlite_dos') {
    if (typeof storage.filepath !== 'string') {
      throw new StorageOpenError(`profile "${name}": storage.config.filepath is missing in ${file}`);
    }
    return openSqliteDos(storage.filepath, { ...options, name });
  }
  throw new StorageOpenError(
    `profile "${name}" uses the storage backend ${String(backend)}; Quarry serves core.psql_dos and core.sqlite_dos profiles, and .aiida archives`,
  );
}

/** The PostgreSQL client is loaded only to open a PostgreSQL source: archives start without it. */
const postgres = () => import('./postgres/backend.js');

/**
 * The libpq URL of a psql_dos profile's settings. A host that is a folder is a local server's socket, which
 * libpq takes as the `host` parameter (a URL's host part cannot hold a path).
 */
function postgresUrl(c: Record<string, unknown>): string {
  const host = String(c.database_hostname ?? 'localhost');
  const port = String(c.database_port ?? 5432);
  const user = encodeURIComponent(String(c.database_username ?? ''));
  const password = c.database_password ? `:${encodeURIComponent(String(c.database_password))}` : '';
  const auth = user || password ? `${user}${password}@` : '';
  const database = encodeURIComponent(String(c.database_name ?? ''));
  if (host.startsWith('/')) {
    return `postgres://${auth}/${database}?host=${encodeURIComponent(host)}&port=${port}`;
  }
  const url = new URL(`postgres://${auth}localhost/${database}`);
  url.hostname = host;
  url.port = port;
  return url.toString();
}

function repositoryFolder(uri: unknown, profile: string): string {
  if (typeof uri !== 'string' || !uri.startsWith('file://')) {
    throw new StorageOpenError(
      `profile "${profile}": storage.config.repository_uri must be a file:// URI, not ${JSON.stringify(uri)}`,
    );
  }
  return fileURLToPath(uri);
}

/** `quarry serve postgres://…`: a psql_dos database given directly, with its repository folder. */
export async function openPostgresUrl(
  url: string,
  repository: string | undefined,
  options: ProfileOptions & { name?: string } = {},
): Promise<StorageBackend> {
  const { openPostgres } = await postgres();
  const { postgresTarget, redacted } = await import('./postgres/url.js');
  if (!repository) {
    throw new StorageOpenError(
      `${redacted(url)}: say where its file repository is with --repository PATH (the profile's repository folder)`,
    );
  }
  return openPostgres(url, await openContainer(repository), {
    ...postgresSettings(options),
    name: options.name ?? postgresTarget(url).database,
    replicas: options.replicas,
  });
}

function postgresSettings(options: ProfileOptions) {
  return {
    poolSize: options.workers,
    timeoutMs: options.queryTimeoutMs,
    maxWaiting: options.maxWaiting,
    onIdleError: options.onIdleError,
    replicasOnly: options.replicasOnly,
    onChange: options.onServerChange,
    summaryDir: options.cacheDir === undefined ? undefined : join(options.cacheDir, 'summaries'),
    cacheDir: options.cacheDir,
  };
}

/**
 * Replicas a psql_dos profile names in its storage settings: `"quarry_replicas": ["postgres://…", …]` (AiiDA
 * itself ignores the key).
 */
function profileReplicas(value: unknown, profile: string, file: string): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' && /^postgres(ql)?:\/\//.test(v))) {
    return value as string[];
  }
  throw new StorageOpenError(
    `profile "${profile}" in ${file}: storage.config.quarry_replicas must be a list of postgres:// URLs`,
  );
}

/** A core.sqlite_dos folder: `database.sqlite` and the `container/` of its files. */
export async function openSqliteDos(
  folder: string,
  options: ProfileOptions & { name?: string } = {},
): Promise<StorageBackend> {
  const root = resolve(folder);
  const dbFile = join(root, 'database.sqlite');
  if (!existsSync(dbFile)) {
    throw new StorageOpenError(`${root} is not a core.sqlite_dos storage folder (it has no database.sqlite)`);
  }
  const repository = await openContainer(join(root, 'container'));
  let db: SqlitePool;
  try {
    db = await SqlitePool.open(dbFile, {
      size: options.workers,
      timeoutMs: options.queryTimeoutMs,
      maxWaiting: options.maxWaiting,
      memoryMb: options.queryMemoryMb,
      shared: options.sharedProcesses,
    });
  } catch (error) {
    await repository.close();
    throw new StorageOpenError(`${dbFile} cannot be read as an AiiDA database: ${(error as Error).message}`);
  }
  let closed = false;
  return {
    name: options.name ?? root.split('/').pop() ?? 'sqlite_dos',
    kind: 'sqlite-profile',
    aiidaVersion: '2.x (core.sqlite_dos)',
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    db,
    repository,
    // The database file (and its write-ahead log) change whenever AiiDA writes.
    // One stat a file, once a request (src/storage/budgeted.ts).
    dataVersion: async () =>
      [dbFile, `${dbFile}-wal`]
        .map((f) => {
          const stat = statSync(f, { throwIfNoEntry: false });
          return stat === undefined ? '-' : `${stat.size}:${stat.mtimeMs}`;
        })
        .join('|'),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([db.close(), repository.close()]);
    },
  };
}
