/** A core.psql_dos profile: its PostgreSQL database and its disk-objectstore repository, read-only. */
import { StorageOpenError, type Repository, type StorageBackend } from '../types.js';
import { PostgresDatabase, type PostgresOptions } from './database.js';
import { PostgresServers, ServerLostError, type ServersOptions } from './servers.js';
import { redacted } from './url.js';
import { SummaryFiles } from '../summary-files.js';

export interface OpenPostgresOptions extends Omit<PostgresOptions, 'url'>, ServersOptions {
  /** The name `?profile=` selects it by. */
  name: string;
  /** Read replicas of the database (streaming standbys), as connection URLs; each gets a pool of its own. */
  replicas?: string[];
  /** The folder where its summaries are kept across restarts (none: computed again at each start). */
  summaryDir?: string;
  /** The source's cache folder (see StorageBackend.cacheDir). */
  cacheDir?: string;
}

/** Schema revisions of aiida-core 2.x whose tables Quarry reads. */
const SUPPORTED_REVISIONS = /^main_000[0-9][a-z]?$/;

export async function openPostgres(
  url: string,
  repository: Repository,
  options: OpenPostgresOptions,
): Promise<StorageBackend> {
  const { replicas = [], replicasOnly, retryMs, onChange, summaryDir, cacheDir, ...settings } = options;
  const db = new PostgresServers(
    new PostgresDatabase({ url, ...settings }),
    replicas.map((replica) => new PostgresDatabase({ ...settings, url: replica })),
    { replicasOnly, retryMs, onChange },
  );
  let revision: string;
  try {
    revision = await schemaRevision(db, url, 1 + replicas.length);
  } catch (error) {
    await db.close();
    throw error;
  }
  let closed = false;
  return {
    name: options.name,
    kind: 'postgres-profile',
    aiidaVersion: `2.x (database schema ${revision})`,
    db,
    repository,
    // What Quarry keeps of a live database (statistics, counts) is kept under the version of the server that
    // computed it; `this` is the request's view of the storage, whose database knows the request's server.
    dataVersion(this: StorageBackend) {
      return (this.db.dataVersion as NonNullable<typeof this.db.dataVersion>)();
    },
    ...(summaryDir === undefined ? {} : { summaryFiles: new SummaryFiles(summaryDir) }),
    ...(cacheDir === undefined ? {} : { cacheDir }),
    health: () => db.health(),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([db.close(), repository.close()]);
    },
  };
}

/** The schema revision, read from the first of the `servers` that answers (a primary may be down at a start). */
async function schemaRevision(db: PostgresServers, url: string, servers: number): Promise<string> {
  const where = redacted(url);
  let rows;
  try {
    for (let tries = 1; ; tries++) {
      try {
        rows = await db.all({ sql: 'SELECT version_num FROM alembic_version', params: [] });
        break;
      } catch (error) {
        if (!(error instanceof ServerLostError) || tries >= servers) throw error;
      }
    }
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    // node-postgres's words when the server asks for a password and none was given (SCRAM or md5).
    if (/client password must be a string|no password supplied/i.test(message ?? '')) {
      throw new StorageOpenError(
        `${where} asks for a password: set PGPASSWORD or put the password in the URL (postgres://user:PASSWORD@host/db)`,
        { cause: error },
      );
    }
    if (/alembic_version/.test(message ?? '')) {
      throw new StorageOpenError(`${where} is not an AiiDA database (it has no alembic_version table)`);
    }
    throw new StorageOpenError(`cannot read the database ${where}: ${message}`, { cause: error });
  }
  const revision = String(rows[0]?.version_num ?? '');
  if (!SUPPORTED_REVISIONS.test(revision)) {
    throw new StorageOpenError(
      `${where} has database schema ${revision || '(none)'}; Quarry reads AiiDA 2.x schemas (main_0000…): migrate the profile with \`verdi storage migrate\``,
    );
  }
  return revision;
}
