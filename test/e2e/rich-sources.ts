/**
 * The rich data as the browser tests serve it: its archive, and the same data as a PostgreSQL profile (with its
 * file repository) where PostgreSQL is installed. CI sets QUARRY_REQUIRE_POSTGRES, so that a missing PostgreSQL
 * fails there instead of skipping.
 */
import { postgresBin, startCluster, type Cluster } from '../../src/bench/postgres-cluster.js';
import { tempDir } from '../helpers.js';
import { unpackContainer } from '../support/profile-fixtures.js';
import { richFile } from '../conformance/corpus.js';
import { serveExplorer } from './support.js';

const withPostgres = postgresBin() !== undefined || process.env.QUARRY_REQUIRE_POSTGRES !== undefined;

/** The forms of the rich data this machine can serve, for `describe.each`. */
export const RICH_SOURCES: readonly ('archive' | 'postgres')[] = [
  'archive',
  ...(withPostgres ? (['postgres'] as const) : []),
];

export interface ServedRich {
  served: Awaited<ReturnType<typeof serveExplorer>>;
  /** Stops the server and, for PostgreSQL, removes its cluster. */
  stop(): void;
}

export async function serveRich(source: 'archive' | 'postgres'): Promise<ServedRich> {
  if (source === 'archive') {
    const served = await serveExplorer([richFile('rich.aiida')]);
    return { served, stop: () => served.stop() };
  }
  const cluster: Cluster = await startCluster();
  try {
    cluster.restore('richpg', richFile('rich-psql.sql.gz'));
    const repository = await unpackContainer(richFile('rich-container-loose.tar.gz'), tempDir());
    const served = await serveExplorer([cluster.url('richpg'), '--repository', repository]);
    return {
      served,
      stop: () => {
        served.stop();
        cluster.destroy();
      },
    };
  } catch (error) {
    cluster.destroy();
    throw error;
  }
}
