/**
 * `quarry prepare FOLDER|FILE... | --sources FILE`: extract every archive's database into the cache folder ahead
 * (an archive at a URL: its database fetched from its server),
 * several at a time, with a progress bar, so that a portal starts warm (its first requests open databases that
 * are there already). Safe beside a running server or another `prepare` on the same cache folder: each
 * archive is extracted once (src/storage/archive/extract-lock.ts), with its search index (src/search/).
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { scanFolders } from '../sources/discover.js';
import { isRemoteArchive, remoteSpec } from '../sources/remote.js';
import { readSourcesFile } from '../sources/sources-file.js';
import type { PortalSpec } from '../sources/spec.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { openArchive } from '../storage/index.js';
import { indexEveryCopy } from '../search/index-file.js';
import { CliError } from './errors.js';
import { progressDisplay } from './progress.js';

export interface PrepareOptions {
  sources?: string;
  cacheDir?: string;
  jobs?: number;
}

const archivesOf = (n: number) => `${n} archive${n === 1 ? '' : 's'}`;

export async function runPrepare(folders: string[], options: PrepareOptions) {
  const urls = folders.filter((f) => isRemoteArchive(f));
  const local = folders.filter((f) => !urls.includes(f));
  const missing = local.find((f) => !existsSync(f));
  if (missing !== undefined) throw new CliError(`${missing}: no such file or folder`);
  // An archive named itself is prepared as it is; folders are searched for archives.
  const files = local.filter((f) => statSync(f).isFile()).map((f) => resolve(f));
  const specs: PortalSpec[] = [
    ...scanFolders(local.filter((f) => !statSync(f).isFile())),
    ...urls.map((url) => remoteSpec(url)),
  ];
  if (options.sources !== undefined) {
    let read;
    try {
      read = readSourcesFile(options.sources);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    specs.push(...read.specs, ...read.folders.flatMap(({ folder }) => scanFolders([folder])));
  }
  const archives = [...new Set([...files, ...specs.filter((s) => s.kind === 'archive').map((s) => s.path!)])];
  if (archives.length === 0) {
    throw new CliError('no .aiida archive to prepare: name folders that hold archives, or a --sources file');
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  indexEveryCopy();
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const display = progressDisplay(`preparing ${archivesOf(archives.length)}`, 'archives', { showAfterMs: 0 });
  const failures: string[] = [];
  let done = 0;
  const work = [...archives];
  display.update(0, archives.length);
  await Promise.all(
    Array.from({ length: Math.min(jobs, archives.length) }, async () => {
      for (let file = work.shift(); file !== undefined; file = work.shift()) {
        try {
          const backend = await openArchive(file, { cacheDir });
          await backend.close();
        } catch (error) {
          failures.push(`${file}: ${(error as Error).message}`);
        }
        display.update(++done, archives.length);
      }
    }),
  );
  display.stop();
  for (const failure of failures) process.stderr.write(`quarry: ${failure}\n`);
  process.stderr.write(
    `quarry: ${archives.length - failures.length} of ${archivesOf(archives.length)} ready in ${cacheDir}\n`,
  );
  if (failures.length > 0)
    throw new CliError(`${archivesOf(failures.length)} could not be prepared (see above)`);
}
