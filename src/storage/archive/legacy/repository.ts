/**
 * Repository files of a legacy archive: `nodes/<uuid[0:2]>/<uuid[2:4]>/<uuid[4:]>/(path|raw_input)/...`.
 * At conversion each file is hashed (sha256, the key aiida-core's migration gives it) and each node gets the
 * `repository_metadata` the migration writes (raw_input/ and path/ merged into one tree); the copy keeps
 * where in the archive each key's bytes are (quarry_legacy_files), so files are served from the archive
 * itself (a zip by entry, a folder or an unpacked tar.gz by path), never copied.
 */
import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Repository, RepositoryObject } from '../../types.js';
import type { ZipArchive } from '../zip.js';
import type { LegacyContainer } from './container.js';
import type { Stage } from './staging.js';
import type { Copy } from './sqlite-copy.js';
import { npySymbols, OLD_TRAJECTORY_TYPE } from './trajectory-symbols.js';

/** The node's uuid and the path in its repository of an entry under nodes/, or undefined for other entries. */
export function repositoryPath(entry: string): { uuid: string; path: string } | undefined {
  const parts = entry.split('/').filter((p) => p !== '');
  if (parts.length < 6 || parts[0] !== 'nodes' || (parts[4] !== 'raw_input' && parts[4] !== 'path')) return;
  return { uuid: parts.slice(1, 4).join(''), path: parts.slice(5).join('/') };
}

/**
 * Hashes every repository file into the stage (`file`) and records where each key's bytes are. With
 * `trajectorySymbols` (versions before 0.4), a TrajectoryData's `path/symbols.npy` is read into the stage
 * (`trajectory_symbols`) instead, as aiida-core's migration moved it into an attribute (trajectory-symbols.ts).
 */
export async function stageFiles(
  container: LegacyContainer,
  stage: Stage,
  copy: Copy,
  onFile?: (count: number) => void,
  trajectorySymbols = false,
): Promise<number> {
  const insertFile = stage.prepare('INSERT INTO file (uuid, path, key) VALUES (?, ?, ?)');
  const insertKey = copy.prepare('INSERT OR IGNORE INTO quarry_legacy_files (key, path) VALUES (?, ?)');
  const insertSymbols = stage.prepare(
    'INSERT OR REPLACE INTO trajectory_symbols (uuid, symbols) VALUES (?, ?)',
  );
  const trajectories = new Set(
    trajectorySymbols
      ? (stage.prepare('SELECT uuid FROM node WHERE type = ?').pluck().all(OLD_TRAJECTORY_TYPE) as string[])
      : [],
  );
  let count = 0;
  const contents = container.inOrder();
  stage.exec('BEGIN');
  copy.exec('BEGIN');
  try {
    for await (const entry of container.nodeEntries()) {
      const at = repositoryPath(entry.path);
      if (!at) continue;
      if (entry.folder) {
        insertFile.run(at.uuid, at.path, null);
        continue;
      }
      const hash = createHash('sha256');
      const body = await contents(entry.path);
      const symbolsFile =
        at.path === 'symbols.npy' && trajectories.has(at.uuid) && entry.path.includes('/path/');
      const kept: Buffer[] = [];
      let size = 0;
      if (Buffer.isBuffer(body)) {
        hash.update(body);
        kept.push(body);
      } else {
        for await (const chunk of body) {
          hash.update(chunk as Buffer);
          // A trajectory's symbols are a few bytes an atom: past 16 MiB the file stays where it is.
          if (symbolsFile && (size += (chunk as Buffer).length) <= MAX_SYMBOLS_BYTES)
            kept.push(chunk as Buffer);
        }
      }
      const symbols = symbolsFile && size <= MAX_SYMBOLS_BYTES ? npySymbols(Buffer.concat(kept)) : undefined;
      if (symbols) {
        insertSymbols.run(at.uuid, JSON.stringify(symbols));
        continue;
      }
      const key = hash.digest('hex');
      insertFile.run(at.uuid, at.path, key);
      insertKey.run(key, entry.path);
      if (++count % 1000 === 0) onFile?.(count);
    }
    stage.exec('COMMIT');
    copy.exec('COMMIT');
  } catch (error) {
    if (stage.inTransaction) stage.exec('ROLLBACK');
    if (copy.inTransaction) copy.exec('ROLLBACK');
    throw error;
  }
  return count;
}

const MAX_SYMBOLS_BYTES = 16 * 2 ** 20;

/**
 * Each node's repository_metadata, staged once (`repo`, by the node's pk) rather than looked up node by node;
 * the files are read in pages (one connection cannot write while it iterates).
 */
export function stageRepositoryMetadata(stage: Stage): void {
  const insert = stage.prepare('INSERT INTO repo_by_uuid (uuid, meta) VALUES (?, ?)');
  const page = stage.prepare(
    'SELECT uuid, path, key, seq FROM file WHERE (uuid, seq) > (?, ?) ORDER BY uuid, seq LIMIT 10000',
  );
  let uuid: string | undefined;
  let files: { path: string; key: string | null }[] = [];
  const flush = () => {
    if (uuid !== undefined) insert.run(uuid, JSON.stringify(repositoryMetadata(files)));
  };
  let after: [string, number] = ['', -1];
  stage.exec('BEGIN');
  for (;;) {
    const rows = page.all(...after) as { uuid: string; path: string; key: string | null; seq: number }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      if (row.uuid !== uuid) {
        flush();
        uuid = row.uuid;
        files = [];
      }
      files.push(row);
    }
    const last = rows[rows.length - 1]!;
    after = [last.uuid, last.seq];
  }
  flush();
  // By pk, through a sort: the nodes are then read with their listings in one pass, in the order of both. The
  // listings are written in uuid order, which a node's pk does not follow; looked up by uuid, node after node,
  // they were read from all over a file larger than the page cache (a third of the time at 10^6 nodes).
  stage.exec(`
    INSERT INTO repo (pk, meta)
    SELECT n.pk, r.meta FROM repo_by_uuid r CROSS JOIN node n ON n.uuid = r.uuid ORDER BY n.pk;
    DROP TABLE repo_by_uuid;
    COMMIT;
  `);
}

type Tree = { [name: string]: Tree | string };

/** A node's repository_metadata from its (path, key) rows: folders {"o": {...}}, files {"k": key}. */
export function repositoryMetadata(rows: Iterable<{ path: string; key: string | null }>): unknown {
  const top: Tree = Object.create(null) as Tree;
  const folder = (parts: string[]): Tree => {
    let at = top;
    for (const part of parts) {
      let next = at[part];
      if (typeof next !== 'object') at[part] = next = Object.create(null) as Tree;
      at = next;
    }
    return at;
  };
  for (const { path, key } of rows) {
    const parts = path.split('/');
    if (key === null) folder(parts);
    else folder(parts.slice(0, -1))[parts[parts.length - 1]!] = key;
  }
  const serialize = (tree: Tree): unknown => {
    const names = Object.keys(tree);
    if (names.length === 0) return {};
    const o: Record<string, unknown> = {};
    for (const name of names) {
      const value = tree[name]!;
      o[name] = typeof value === 'string' ? { k: value } : serialize(value);
    }
    return { o };
  };
  return serialize(top);
}

/** The files of a converted archive, read where the copy says they are. */
export function legacyRepository(
  copyFile: string,
  source: { zip: ZipArchive } | { folder: string },
): Repository {
  const db = new BetterSqlite3(copyFile, { readonly: true, fileMustExist: true });
  const lookup = db.prepare('SELECT path FROM quarry_legacy_files WHERE key = ?').pluck();
  let closed = false;
  return {
    async get(key: string): Promise<RepositoryObject | undefined> {
      if (closed) return undefined;
      const path = lookup.get(key) as string | undefined;
      if (path === undefined) return undefined;
      if ('zip' in source) {
        const entry = source.zip.get(path);
        if (!entry) return undefined;
        return { size: entry.size, stream: () => source.zip.openStream(path) };
      }
      const file = join(source.folder, ...path.split('/'));
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      return { size: info.size, stream: async () => createReadStream(file) };
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
