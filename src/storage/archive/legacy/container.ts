/**
 * What a legacy archive is read through: a zip (read in place, by entry), or a folder (an extracted archive,
 * or a tar.gz unpacked once into the cache, tar-unpack.ts). Both list the files under `nodes/` in the order
 * they hold them, which is the order aiida-core's migration writes a node's repository listing in.
 */
import { createReadStream } from 'node:fs';
import { opendir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sourcePath } from '../copy-sources.js';
import type { ZipArchive, ZipOrigin } from '../zip.js';

/** A path under `nodes/`: a file, or a folder (folders are listed so that empty ones are kept). */
export interface NodeEntry {
  path: string;
  folder: boolean;
}

export interface LegacyContainer {
  /** The archive as given (a path or URL), for messages. */
  readonly file: string;
  readonly kind: 'zip' | 'folder' | 'tar.gz';
  /** Size in bytes of an entry (`metadata.json`, `data.json`, a file under `nodes/`); undefined when absent. */
  size(name: string): Promise<number | undefined>;
  read(name: string): Promise<Buffer>;
  openStream(name: string): Promise<Readable>;
  /**
   * A reader of the files under `nodes/` in nodeEntries' order: a small file's bytes, a larger one's stream.
   * Faster than openStream for a walk of them all (a zip reads many files at once).
   */
  inOrder(): (name: string) => Promise<Buffer | Readable>;
  /** Every entry under `nodes/`, in the container's order. */
  nodeEntries(): AsyncIterable<NodeEntry>;
}

export function zipContainer(zip: ZipArchive): LegacyContainer {
  return {
    file: zip.file,
    kind: 'zip',
    size: async (name) => zip.get(name)?.size,
    read: (name) => zip.read(name),
    openStream: (name) => zip.openStream(name),
    inOrder: () => zip.inOrder(),
    async *nodeEntries() {
      for (const entry of zip.entries())
        if (entry.name.startsWith('nodes/')) yield { path: entry.name, folder: entry.folder };
    },
  };
}

/** A folder holding metadata.json, data.json and nodes/ (`file` names it in messages). */
export function folderContainer(
  root: string,
  file = root,
  kind: 'folder' | 'tar.gz' = 'folder',
): LegacyContainer {
  const at = (name: string) => join(root, ...name.split('/'));
  return {
    file,
    kind,
    async size(name) {
      const info = await stat(at(name)).catch(() => undefined);
      return info?.isFile() ? info.size : undefined;
    },
    read: (name) => readFile(at(name)),
    openStream: async (name) => createReadStream(at(name)),
    inOrder: () => async (name) => createReadStream(at(name)),
    async *nodeEntries() {
      // Depth first, names sorted: the order a zip of the folder would hold them in.
      async function* walk(dir: string, rel: string): AsyncGenerator<NodeEntry> {
        const handle = await opendir(dir).catch(() => undefined);
        if (!handle) return;
        const names: { name: string; folder: boolean }[] = [];
        for await (const entry of handle) {
          if (entry.isDirectory()) names.push({ name: entry.name, folder: true });
          else if (entry.isFile()) names.push({ name: entry.name, folder: false });
        }
        names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const { name, folder } of names) {
          const path = `${rel}/${name}`;
          yield { path, folder };
          if (folder) yield* walk(join(dir, name), path);
        }
      }
      yield* walk(join(root, 'nodes'), 'nodes');
    },
  };
}

/** A folder's identity for its copy's name: metadata.json's and data.json's sizes and times. */
export async function folderOrigin(root: string): Promise<ZipOrigin> {
  const data = await stat(join(root, 'data.json'));
  const metadata = await stat(join(root, 'metadata.json'));
  return {
    size: data.size,
    stamp: `${data.mtimeMs}:${metadata.size}:${metadata.mtimeMs}`,
    source: await sourcePath(root),
  };
}
