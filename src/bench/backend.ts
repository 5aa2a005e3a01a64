/**
 * The storage the benchmark serves: the generated archive itself (or `--data`: an archive or a core.sqlite_dos
 * folder), or (`--backend postgres`) its data loaded into a throw-away PostgreSQL cluster, opened as a profile
 * is (`openPostgres`, with its change detection and pool), with the archive's files as the repository: the
 * figures are what users of a real profile get.
 */
import { statSync } from 'node:fs';
import { openPostgres } from '../storage/postgres/backend.js';
import { openArchive } from '../storage/index.js';
import { openSqliteDos } from '../storage/profiles.js';
import type { StorageBackend } from '../storage/types.js';

export async function benchBackend(
  file: string,
  pgUrl?: string,
  options: { cacheDir?: string } = {},
): Promise<StorageBackend> {
  // A folder is a core.sqlite_dos profile (`--data FOLDER`), served as `quarry serve FOLDER` does.
  if (statSync(file).isDirectory()) return openSqliteDos(file, { name: 'bench', ...options });
  const archive = await openArchive(file, options);
  if (!pgUrl) return archive;
  // The archive owns its repository and closes it; the profile's close must not close it a second time.
  const repository = { get: archive.repository.get.bind(archive.repository), close: async () => {} };
  let profile: StorageBackend;
  try {
    profile = await openPostgres(pgUrl, repository, { name: 'bench', poolSize: 8 });
  } catch (error) {
    await archive.close();
    throw error;
  }
  return {
    ...profile,
    async close() {
      await profile.close();
      await archive.close();
    },
  };
}

/** Set to 1 in the environment of the benchmark's servers: they count requests for /metrics. */
export const BENCH_METRICS = 'QUARRY_BENCH_METRICS';

/** The kept answers' file of the benchmark's servers (as quarry serve's in its cache folder); unset: in memory. */
export const BENCH_KEPT_FILE = 'QUARRY_BENCH_KEPT_FILE';

/** Set to 0 in the environment of the benchmark's servers: whole GET answers are not kept. */
export const BENCH_KEPT_GETS = 'QUARRY_BENCH_KEPT_GETS';
