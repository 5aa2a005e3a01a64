/**
 * The `nodes/` tree of a legacy archive: each node's repository folder at nodes/<uuid[0:2]>/<uuid[2:4]>/<uuid[4:]>/,
 * its files under `path/` (and, in 0.1-0.3, a calcjob's input files under `raw_input/`, where AiiDA 0.x kept
 * them). Every node gets its folder, with files or without, as aiida-core's export wrote it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { FileStore } from '../file-store.js';
import type { RepoTree } from '../builder.js';
import type { ArchiveSink } from './sink.js';
import { npyStrings, type NodeRow } from './translate.js';
import type { LegacyFormat } from './versions.js';

export const nodeFolder = (uuid: string) => `nodes/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid.slice(4)}/`;

/** Write every node's folder; `onNode` is told each node written, for progress. */
export async function writeRepository(
  f: LegacyFormat,
  db: BetterSqlite3.Database,
  files: FileStore,
  sink: ArchiveSink,
  onNode?: (done: number) => void,
): Promise<void> {
  // Read a page of nodes at a time: the statement must not stay open while the sink waits on the disk.
  const page = db.prepare(
    'SELECT id, uuid, node_type, attributes, repository_metadata FROM db_dbnode WHERE id > ? ORDER BY id LIMIT 500',
  );
  let after = 0;
  let done = 0;
  for (;;) {
    const nodes = page.all(after) as Pick<
      NodeRow,
      'id' | 'uuid' | 'node_type' | 'attributes' | 'repository_metadata'
    >[];
    if (nodes.length === 0) return;
    for (const node of nodes) {
      const folder = nodeFolder(node.uuid);
      await sink.directory(folder);
      const oldCalcJob = f.v <= 3 && node.node_type === 'process.calculation.calcjob.CalcJobNode.';
      const tree = JSON.parse(node.repository_metadata) as Partial<RepoTree>;
      await sink.directory(`${folder}path/`);
      if (oldCalcJob) await sink.directory(`${folder}raw_input/`);
      await writeTree(tree, `${folder}${oldCalcJob ? 'raw_input' : 'path'}/`, files, sink);
      if (f.v <= 3 && node.node_type === 'data.core.array.trajectory.TrajectoryData.') {
        const { symbols } = JSON.parse(node.attributes) as { symbols?: string[] };
        if (symbols) await sink.file(`${folder}path/symbols.npy`, npyStrings(symbols));
      }
      onNode?.(++done);
    }
    after = nodes[nodes.length - 1]!.id;
  }
}

async function writeTree(tree: Partial<RepoTree>, prefix: string, files: FileStore, sink: ArchiveSink) {
  for (const [name, object] of Object.entries(tree.o ?? {})) {
    if ('k' in object) await sink.file(`${prefix}${name}`, files.get(object.k as string));
    else {
      await sink.directory(`${prefix}${name}/`);
      await writeTree(object as RepoTree, `${prefix}${name}/`, files, sink);
    }
  }
}
