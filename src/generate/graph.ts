/**
 * The generated provenance graph, built into a scratch SQLite file in the main_0001 schema: the one data model
 * that both the main_0001 archive (index.ts) and the legacy JSON archives (legacy/) are written from.
 */
import { GraphBuilder } from './builder.js';
import type { FileStore } from './file-store.js';
import { looseData } from './loose-data.js';
import { Rng } from './prng.js';
import { setup } from './setup.js';
import { arithmetic, pwWorkflow } from './workflows.js';

export interface BuildOptions {
  nodes: number;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Build the graph of `nodes` nodes into `dbFile` (its repository files beside it, in `${dbFile}.files`).
 * The database is committed, indexed and closed; the file store is returned open, for the caller to read and close.
 */
export function buildGraph(dbFile: string, options: BuildOptions): FileStore {
  const { nodes } = options;
  if (!Number.isInteger(nodes) || nodes < 30) throw new Error('an archive needs at least 30 nodes');
  const rng = new Rng(options.seed ?? 1);
  const builder = new GraphBuilder(dbFile, rng, nodes);
  try {
    const shared = setup(builder, rng);
    let reported = 0;
    // Whole units while there is room for the largest one, then single data nodes to land on `nodes` exactly.
    while (nodes - builder.nodeCount > 12) {
      const r = rng.next();
      if (r < 0.45) pwWorkflow(builder, rng, shared);
      else if (r < 0.65) arithmetic(builder, rng, shared);
      else looseData(builder, rng, shared);
      if (builder.nodeCount - reported >= 1000) {
        reported = builder.nodeCount;
        options.onProgress?.(reported, nodes);
      }
    }
    while (builder.nodeCount < nodes) looseData(builder, rng, shared);
    builder.finish();
    options.onProgress?.(nodes, nodes);
    return builder.files;
  } catch (error) {
    builder.files.close();
    if (builder.db.open) builder.db.close();
    throw error;
  }
}
