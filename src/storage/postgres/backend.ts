/** A core.psql_dos profile: its PostgreSQL database and its disk-objectstore repository, read-only. */
import { StorageOpenError, type Repository, type StorageBackend } from '../types.js';
import { PostgresDatabase, type PostgresOptions } from './database.js';

export interface OpenPostgresOptions extends Omit<PostgresOptions, 'url'> {
  /** The name `?profile=` selects it by. */
  name: string;
}

/** Schema revisions of aiida-core 2.x whose tables Quarry reads. */
const SUPPORTED_REVISIONS = /^main_000[0-9][a-z]?$/;

export async function openPostgres(
  url: string,
  repository: Repository,
  options: OpenPostgresOptions,
): Promise<StorageBackend> {
  const db = new PostgresDatabase({ url, ...options });
  let revision: string;
  try {
    revision = await schemaRevision(db, url);
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
    // Statistics of a live database are recomputed when nodes were added, changed or deleted.
    dataVersion: async () => {
      const rows = await db.all({
        sql:
          'SELECT (SELECT max(id) FROM db_dbnode) AS id, (SELECT max(mtime) FROM db_dbnode) AS mtime, ' +
          "(SELECT n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relname = 'db_dbnode') AS changes",
        params: [],
      });
      const r = rows[0] ?? {};
      return `${String(r.id)}|${String(r.mtime)}|${String(r.changes)}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([db.close(), repository.close()]);
    },
  };
}

async function schemaRevision(db: PostgresDatabase, url: string): Promise<string> {
  const where = redacted(url);
  let rows;
  try {
    rows = await db.all({ sql: 'SELECT version_num FROM alembic_version', params: [] });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    if (/alembic_version/.test(message ?? '')) {
      throw new StorageOpenError(`${where} is not an AiiDA database (it has no alembic_version table)`);
    }
    throw new StorageOpenError(`cannot read the database ${where}: ${message}`);
  }
  const revision = String(rows[0]?.version_num ?? '');
  if (!SUPPORTED_REVISIONS.test(revision)) {
    throw new StorageOpenError(
      `${where} has database schema ${revision || '(none)'}; Quarry reads AiiDA 2.x schemas (main_0000…): migrate the profile with \`verdi storage migrate\``,
    );
  }
  return revision;
}

/** A connection URL without its password, for messages. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an invalid database URL)';
  }
}
