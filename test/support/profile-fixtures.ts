/** Live-profile layouts made from the conformance data: unpacked containers and core.sqlite_dos folders. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import type { Cluster } from '../../src/bench/postgres-cluster.js';
import { openPostgresUrl } from '../../src/storage/profiles.js';
import type { StorageBackend } from '../../src/storage/types.js';
import { richFile } from '../conformance/corpus.js';
import { readAll } from '../storage-fixtures.js';

/** Unpack a container tarball (one top folder) into `into`; returns the container folder. */
export async function unpackContainer(tarball: string, into: string): Promise<string> {
  execFileSync('tar', ['-xzf', tarball, '-C', into]);
  const [top] = readdirSync(into);
  if (!top) throw new Error(`${tarball} is empty`);
  return join(into, top);
}

/** A core.sqlite_dos folder: the archive's database as database.sqlite, the container as container/. */
export async function sqliteDosFolder(
  archive: string,
  containerTarball: string,
  into: string,
): Promise<string> {
  const folder = join(into, 'sqlite_dos');
  mkdirSync(folder);
  await archiveDatabase(archive, join(folder, 'database.sqlite'));
  const unpackInto = join(into, 'unpack');
  mkdirSync(unpackInto);
  renameSync(await unpackContainer(containerTarball, unpackInto), join(folder, 'container'));
  return folder;
}

/** The rich data as a live PostgreSQL profile: database `rich` of `cluster`, its container unpacked in `into`. */
export async function richPostgresProfile(cluster: Cluster, into: string): Promise<StorageBackend> {
  cluster.restore('rich', richFile('rich-psql.sql.gz'));
  const unpacked = await unpackContainer(richFile('rich-container-loose.tar.gz'), into);
  const repository = join(into, 'repository');
  mkdirSync(repository);
  renameSync(unpacked, join(repository, 'container'));
  return openPostgresUrl(cluster.url('rich'), join(repository, 'container'), { name: 'rich' });
}

/** The db.sqlite3 of an archive, written to `file`. */
export async function archiveDatabase(archive: string, file: string): Promise<void> {
  const zip = await yauzl.openPromise(archive, { lazyEntries: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName === 'db.sqlite3') {
        writeFileSync(file, await readAll(await zip.openReadStreamPromise(entry)));
        return;
      }
    }
  } finally {
    zip.close();
  }
  throw new Error(`${archive} has no db.sqlite3`);
}
