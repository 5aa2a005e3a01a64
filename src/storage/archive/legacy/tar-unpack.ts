/**
 * A tar.gz (or plain tar) legacy archive unpacked once into the cache folder, beside its converted copy: a
 * tar has no index, so its `nodes/` files could not be served by random access. Only `metadata.json`,
 * `data.json` and regular files and folders under `nodes/` are written, at safe paths; the whole is bounded
 * (limits.ts) so a gzip bomb is refused rather than filling the disk.
 */
import { closeSync, createReadStream, createWriteStream, openSync, readSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import { LegacyArchiveError, unpackLimit } from './limits.js';

/** Whether `head` (a file's first bytes, up to 512 of them) starts as a gzip or a tar does. */
export function startsAsTarball(head: Buffer): boolean {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';
}

/** Whether the file starts as a gzip or a tar does. */
export async function isTarFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    return startsAsTarball(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** What looksLegacyTar reads of a file: its first tar headers, packed (a gzip inflates at most ~1000 times). */
const HEAD_BYTES = 4096;

/**
 * Whether `file` is a tar.gz (or tar) whose first entry is one of a legacy archive's (data.json, metadata.json,
 * nodes/): the tar.gz files of a folder are told apart from other tarballs (a disk-objectstore container, a
 * backup) by their first 4 KiB, synchronously, as a folder scan reads names and sizes.
 */
export function looksLegacyTar(file: string): boolean {
  let head: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      const packed = Buffer.alloc(HEAD_BYTES);
      head = packed.subarray(0, readSync(fd, packed, 0, HEAD_BYTES, 0));
    } finally {
      closeSync(fd);
    }
    // A gzip cut short inflates as far as it goes.
    if (head[0] === 0x1f && head[1] === 0x8b)
      head = gunzipSync(head, {
        finishFlush: zlibConstants.Z_SYNC_FLUSH,
        maxOutputLength: 2048 * HEAD_BYTES,
      });
  } catch {
    return false;
  }
  for (let at = 0; at + 512 <= head.length;) {
    const header = head.subarray(at, at + 512);
    const ustar = header.subarray(257, 262).toString('latin1') === 'ustar';
    // Old (v7) tars have no magic; their checksum says they are tars all the same.
    if (!ustar && !tarChecksumMatches(header)) return false;
    const text = (from: number, to: number) => {
      const field = header.subarray(from, to);
      const end = field.indexOf(0);
      return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
    };
    const name = text(0, 100);
    if (name === '') return false;
    const type = String.fromCharCode(header[156]!);
    const size = parseInt(text(124, 136).trim() || '0', 8);
    if (!Number.isFinite(size)) return false;
    at += 512 + Math.ceil(size / 512) * 512;
    // Long names and extended headers describe the entry after them.
    if ('xgLK'.includes(type)) continue;
    const prefix = ustar ? text(345, 500) : '';
    const full = prefix ? `${prefix}/${name}` : name;
    if (full.split('/').every((p) => p === '' || p === '.')) continue; // the archive's own folder, `./`
    return safePath(full) !== undefined;
  }
  return false;
}

function tarChecksumMatches(header: Buffer): boolean {
  let sum = 0;
  for (let k = 0; k < 512; k++) sum += k >= 148 && k < 156 ? 32 : header[k]!;
  const stored = parseInt(header.subarray(148, 156).toString('latin1').replace(/\0.*$/, '').trim(), 8);
  return stored === sum;
}

/** The entry's path inside the archive, or undefined for one that is not to be written. */
function safePath(name: string): string | undefined {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..' || p.includes('\\') || p.includes('\0'))) return undefined;
  const path = parts.join('/');
  if (path === 'metadata.json' || path === 'data.json' || path === 'nodes' || path.startsWith('nodes/'))
    return path;
  return undefined;
}

/** Unpacks `file` into `into` (a new folder); `onBytes` is told the packed bytes read so far. */
export async function unpackTar(
  file: string,
  size: number,
  into: string,
  onBytes?: (done: number) => void,
): Promise<void> {
  await mkdir(into, { recursive: true });
  const limit = unpackLimit(size);
  const bomb = () =>
    new LegacyArchiveError(
      `it unpacks to more than ${limit} bytes (${Math.round(limit / Math.max(1, size))} times its size): a decompression bomb, or not an archive`,
    );
  const gzip = await isGzip(file);
  const extract = tarStream.extract();
  const source = createReadStream(file);
  let read = 0;
  const counting = new PassThrough();
  counting.on('data', (chunk: Buffer) => onBytes?.((read += chunk.length)));
  // Every inflated byte, of entries written or skipped: a skipped entry of zeros costs the time it inflates.
  let inflated = 0;
  const inflation = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      done(inflated > limit ? bomb() : null, chunk);
    },
  });
  const unpacking = (async () => {
    try {
      await unpackEntries();
    } catch (error) {
      // The read stops too, rather than wait on an extractor nobody reads.
      extract.destroy(error as Error);
      throw error;
    }
  })();
  async function unpackEntries() {
    for await (const entry of extract) {
      const header = entry.header;
      const path = safePath(header.name);
      try {
        if (path !== undefined && header.type === 'directory') {
          await mkdir(join(into, ...path.split('/')), { recursive: true });
        } else if (path !== undefined && header.type === 'file' && path !== 'nodes') {
          const target = join(into, ...path.split('/'));
          await mkdir(dirname(target), { recursive: true });
          // An entry held twice is written as tar writes it: the later replaces the earlier.
          await rm(target, { force: true });
          await pipeline(entry as unknown as Readable, createWriteStream(target, { flags: 'wx' }));
          continue;
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
          throw new LegacyArchiveError(
            `it holds ${JSON.stringify(path!.slice(0, 200))} both as a file and as a folder (or inside a file); the archive is damaged: export it again`,
          );
        }
        throw error;
      }
      entry.resume();
    }
  }
  await Promise.all([
    gzip
      ? pipeline(source, counting, createGunzip(), inflation, extract)
      : pipeline(source, counting, inflation, extract),
    unpacking,
  ]);
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    return head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}
