/**
 * Serving a legacy archive (export versions 0.1-0.13): a zip, a tar.gz or an extracted folder, converted
 * once into the cached SQLite copy an AiiDA 2.x archive gets (extract.ts: same folder, lock, indexes,
 * statistics and summaries), then served as one; files come from the archive itself (repository.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { basename, join } from 'node:path';
import { defaultCacheDir } from '../../cache-dir.js';
import type { ProgressCallback } from '../../observe.js';
import { StorageOpenError, type QuerySettings, type StorageBackend } from '../../types.js';
import { sourcePath } from '../copy-sources.js';
import { openCopy } from '../copy-pool.js';
import { cachedCopy, type CopyRecipe } from '../extract.js';
import type { RemoteTar } from '../remote.js';
import { keptSummary } from '../kept-summaries.js';
import { typeOrderTable } from '../type-order.js';
import { oneLine, type ZipArchive, type ZipOrigin } from '../zip.js';
import { folderContainer, folderOrigin, zipContainer } from './container.js';
import { convertLegacy } from './convert.js';
import { LegacyArchiveError, MAX_DOWNLOAD_BYTES, unpackLimit } from './limits.js';
import { legacyRepository } from './repository.js';
import { unpackTar } from './tar-unpack.js';

/** Changing how archives are converted changes this, so that older copies are made anew. */
const CONVERTER = 'legacy-2';

export type LegacySource =
  { zip: ZipArchive } | { folder: string } | { tar: string } | { remoteTar: RemoteTar };

export interface OpenLegacyOptions extends QuerySettings {
  cacheDir?: string;
  onExtractProgress?: ProgressCallback;
  extractWaitMs?: number;
  /** Where warnings of a conversion go (default: stderr). */
  onWarning?: (line: string) => void;
}

/** The file or folder's name as served. */
function nameOf(file: string): string {
  const base = basename(/^https?:\/\//i.test(file) ? new URL(file).pathname : file);
  return base.replace(/\.tar\.gz$|\.tgz$|\.aiida$/i, '') || base;
}

export async function openLegacyArchive(
  source: LegacySource,
  options: OpenLegacyOptions = {},
): Promise<StorageBackend> {
  const file =
    'zip' in source
      ? source.zip.file
      : 'folder' in source
        ? source.folder
        : 'tar' in source
          ? source.tar
          : source.remoteTar.origin.source;
  const { recipe, files } = await recipeOf(source, file);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const copy = await cachedCopy(recipe, cacheDir, options.onExtractProgress, options.extractWaitMs);
  const { metadata, warnings } = readKept(copy, file);
  if (recipe.converted) for (const w of warnings) (options.onWarning ?? warn)(`${file}: ${w}`);
  const opened = await openCopy(
    copy,
    options,
    (reason) => `${file}: its converted database cannot be read (${reason}); delete ${copy} and start again`,
  );
  const repository = legacyRepository(
    copy,
    files === undefined ? { zip: (source as { zip: ZipArchive }).zip } : { folder: files(copy) },
  );
  const identity = createHash('sha256')
    .update(`${recipe.origin.size}\0${recipe.fingerprint}`)
    .digest('base64url')
    .slice(0, 32);
  let closed = false;
  return {
    name: nameOf(file),
    kind: 'archive',
    aiidaVersion: typeof metadata.aiida_version === 'string' ? metadata.aiida_version : 'unknown',
    exportVersion: String(metadata.export_version),
    identity,
    db: opened,
    repository,
    cacheDir,
    keptSummary: (name) => keptSummary(opened, name),
    nodeTypeOrder: await typeOrderTable(opened),
    async close() {
      if (closed) return;
      closed = true;
      await repository.close();
      await opened.close();
      if ('zip' in source) source.zip.close();
    },
  };
}

function warn(line: string): void {
  process.stderr.write(`quarry: ${line}\n`);
}

/** The copy's recipe, and where the files are served from (undefined: from the zip). */
async function recipeOf(
  source: LegacySource,
  file: string,
): Promise<{ recipe: CopyRecipe & { converted: boolean }; files?: (copy: string) => string }> {
  const problem = (error: unknown) =>
    error instanceof LegacyArchiveError
      ? `${file}: ${error.message}`
      : `${file} cannot be converted (${oneLine((error as Error).message ?? String(error))}); the archive is damaged or cut short: copy or download it again`;
  const base = { problem, converted: false };
  if ('zip' in source) {
    const zip = source.zip;
    const origin = await zip.origin();
    let unpacked = 0;
    for (const name of zip.names()) unpacked += zip.get(name)!.size;
    if (unpacked > unpackLimit(origin.size)) {
      throw new StorageOpenError(
        `${file} unpacks to ${unpacked} bytes, ${Math.round(unpacked / Math.max(1, origin.size))} times its size: a zip bomb, not an archive`,
      );
    }
    const recipe = {
      ...base,
      file,
      origin,
      fingerprint: `${CONVERTER}\0${zip.fingerprint}`,
      async fill(temp: string, onProgress: ProgressCallback | undefined) {
        recipe.converted = true;
        await convertLegacy(zipContainer(zip), temp, onProgress);
      },
    };
    return { recipe };
  }
  if ('folder' in source) {
    const root = source.folder;
    const origin = await folderOrigin(root).catch((error: unknown) => {
      throw new StorageOpenError(`${file}: ${oneLine((error as Error).message)}`);
    });
    const recipe = {
      ...base,
      file,
      origin,
      fingerprint: `${CONVERTER}\0folder`,
      async fill(temp: string, onProgress: ProgressCallback | undefined) {
        recipe.converted = true;
        await convertLegacy(folderContainer(root), temp, onProgress);
      },
    };
    return { recipe, files: () => root };
  }
  if ('remoteTar' in source) return remoteTarRecipe(source.remoteTar, base);
  const tar = source.tar;
  const info = await stat(tar);
  const origin: ZipOrigin = { size: info.size, stamp: String(info.mtimeMs), source: await sourcePath(tar) };
  const recipe = {
    ...base,
    file,
    origin,
    fingerprint: `${CONVERTER}\0tar`,
    async fill(temp: string, onProgress: ProgressCallback | undefined, beside: string) {
      recipe.converted = true;
      await unpackAndConvert(tar, info.size, tar, beside, temp, onProgress);
    },
  };
  return { recipe, files: (copy) => `${copy}.files` };
}

/**
 * A tar.gz at a URL, which cannot be read by range: downloaded whole beside the copy (under the copy's lock,
 * the server asked for that same file), unpacked, converted, and the download deleted; its files are then
 * served from the unpacked folder as a local tar.gz's are.
 */
function remoteTarRecipe(
  remote: RemoteTar,
  base: { problem: (error: unknown) => string; converted: boolean },
): { recipe: CopyRecipe & { converted: boolean }; files: (copy: string) => string } {
  const { origin, tar: reader } = remote;
  const size = origin.size;
  const recipe = {
    ...base,
    file: origin.source,
    origin,
    fingerprint: `${CONVERTER}\0remote-tar`,
    async fill(temp: string, onProgress: ProgressCallback | undefined, beside: string) {
      recipe.converted = true;
      if (size > MAX_DOWNLOAD_BYTES) {
        throw new LegacyArchiveError(
          `it is ${size} bytes, more than the ${MAX_DOWNLOAD_BYTES} a tar.gz at a URL is downloaded for (it cannot be read by range); download it and serve the file`,
        );
      }
      const download = `${beside}.download`;
      try {
        onProgress?.('download', 0, size);
        let done = 0;
        const source = reader.createReadStream({ start: 0, end: size });
        source.on('data', (chunk: Buffer) => onProgress?.('download', (done += chunk.length), size));
        await pipeline(source, createWriteStream(download));
        await unpackAndConvert(download, size, origin.source, beside, temp, onProgress);
      } finally {
        await rm(download, { force: true });
      }
    },
  };
  return { recipe, files: (copy) => `${copy}.files` };
}

/**
 * A tar.gz's conversion: unpacked into `beside` (the copy's files), converted into `temp`; `shown` names the
 * archive in messages.
 */
async function unpackAndConvert(
  tar: string,
  size: number,
  shown: string,
  beside: string,
  temp: string,
  onProgress: ProgressCallback | undefined,
): Promise<void> {
  onProgress?.('unpack', 0, size);
  await unpackTar(tar, size, beside, (done) => onProgress?.('unpack', done, size));
  await convertLegacy(folderContainer(beside, shown, 'tar.gz'), temp, onProgress);
  // Only nodes/ is read from now on.
  await rm(join(beside, 'data.json'), { force: true });
}

/** The original metadata.json and the conversion's warnings, as the copy keeps them. */
function readKept(copy: string, file: string): { metadata: Record<string, unknown>; warnings: string[] } {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(copy, { readonly: true, fileMustExist: true });
    const row = db.prepare('SELECT metadata, warnings FROM quarry_legacy_metadata').get() as
      { metadata: string; warnings: string } | undefined;
    if (!row) throw new Error('it holds no metadata');
    return {
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      warnings: JSON.parse(row.warnings) as string[],
    };
  } catch (error) {
    throw new StorageOpenError(
      `${file}: its converted copy ${copy} cannot be read (${oneLine((error as Error).message)}); delete it and start again`,
    );
  } finally {
    db?.close();
  }
}
