/**
 * The data the browser tests serve: the rich archive, the same data as a PostgreSQL profile (with its file
 * repository) where PostgreSQL is installed, and a generated archive of 10^5 nodes (generated-source.ts). CI sets
 * QUARRY_REQUIRE_POSTGRES, so that a missing PostgreSQL fails there instead of skipping.
 */
import { postgresBin, startCluster, type Cluster } from '../../src/bench/postgres-cluster.js';
import { tempDir } from '../helpers.js';
import { unpackContainer } from '../support/profile-fixtures.js';
import { richFile } from '../conformance/corpus.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { generatedArchive } from './generated-source.js';
import { launchBrowser, serveExplorer, type ApiNode } from './support.js';

const withPostgres = postgresBin() !== undefined || process.env.QUARRY_REQUIRE_POSTGRES !== undefined;

export type Source = 'archive' | 'postgres' | 'generated';

/** The forms of the rich data this machine can serve, for `describe.each`. */
export const RICH_SOURCES: readonly Source[] = ['archive', ...(withPostgres ? (['postgres'] as const) : [])];

/** Those and the generated archive of 10^5 nodes. */
export const ALL_SOURCES: readonly Source[] = [...RICH_SOURCES, 'generated'];

export interface ServedRich {
  served: Awaited<ReturnType<typeof serveExplorer>>;
  /** Stops the server and, for PostgreSQL, removes its cluster. */
  stop(): void;
}

export async function serveRich(source: Source): Promise<ServedRich> {
  if (source !== 'postgres') {
    const file = source === 'archive' ? richFile('rich.aiida') : await generatedArchive();
    const served = await serveExplorer([file]);
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

/**
 * The explorer over `source` and a browser, for the tests of one `describe` block: started before them and closed
 * after them. `nodesOfType` is the API's listing of one full type, in pk order.
 */
export function richExplorer(source: Source = 'archive') {
  let rich: ServedRich | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [rich, browser] = await Promise.all([serveRich(source), launchBrowser()]);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    rich?.stop();
  });
  return {
    get served() {
      return rich!.served;
    },
    get browser() {
      return browser!;
    },
    async nodesOfType<T extends ApiNode = ApiNode>(
      fullType: string,
      extra = '',
      perpage = 400,
    ): Promise<T[]> {
      const type = encodeURIComponent(`"${fullType}"`);
      const page = `/nodes/page/1/?perpage=${perpage}&orderby=id&full_type=${type}${extra}`;
      return (await rich!.served.api<{ nodes: T[] }>(page)).data.nodes;
    },
  };
}
