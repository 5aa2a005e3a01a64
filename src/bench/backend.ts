/**
 * The storage the benchmark serves: the generated archive itself, or (`--backend postgres`) its data loaded
 * into a throw-away PostgreSQL cluster, with the archive's files as the repository.
 */
import { PostgresDatabase } from '../storage/postgres/database.js';
import { openArchive } from '../storage/index.js';
import type { StorageBackend } from '../storage/types.js';

export async function benchBackend(file: string, pgUrl?: string): Promise<StorageBackend> {
  const archive = await openArchive(file);
  if (!pgUrl) return archive;
  const db = new PostgresDatabase({ url: pgUrl, poolSize: 8 });
  return {
    name: 'bench',
    kind: 'postgres-profile',
    aiidaVersion: archive.aiidaVersion,
    db,
    repository: archive.repository,
    // The benchmark's database does not change while it runs.
    dataVersion: async () => 'fixed',
    async close() {
      await db.close();
      await archive.close();
    },
  };
}

/** Set to 1 in the environment of the benchmark's servers: they count requests for /metrics. */
export const BENCH_METRICS = 'QUARRY_BENCH_METRICS';
