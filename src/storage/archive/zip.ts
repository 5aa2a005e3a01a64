/**
 * Random access into a zip through its central directory (yauzl), indexed once at open.
 *
 * The index keeps four numbers per entry in typed arrays instead of yauzl's Entry objects (about 1 kB each):
 * an archive with millions of repository files must not need gigabytes of memory just to be opened.
 */
import { close, fstat, open, read } from 'node:fs';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { asShortage } from '../shortage.js';
import { CorruptObjectError, StorageOpenError } from '../types.js';
import { sourcePath } from './copy-sources.js';
import { FileReader } from './file-reader.js';
import { NameIndex } from './name-index.js';

const openFd = promisify(open);
const fstatFd = promisify(fstat);
const readFd = promisify(read);
const closeFd = promisify(close);

/** Entries up to this size (compressed) are read and inflated in one go: most repository files. */
const SMALL_ENTRY = 1 << 16;
/** Room read ahead of an entry's data for its local header: 30 bytes, its name and a modest extra field. */
const LOCAL_HEADER_ROOM = 1024;
/** What inOrder reads at a time: thousands of repository files of a legacy archive. */
const WINDOW = 4 << 20;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const ENCRYPTED_FLAG = 0x1;

export interface ZipEntry {
  readonly name: string;
  readonly size: number;
}

/** Where a zip's bytes come from, for naming its extracted copy. */
export interface ZipOrigin {
  /** The file's size and what changes when it is replaced (its mtime, or a server's ETag/Last-Modified). */
  size: number;
  stamp: string;
  /** The file as the copies record it (an absolute path, or a URL). */
  source: string;
}

/** What the index needs of a reader besides yauzl's: read-ahead while indexing, and the directory's hash. */
export interface IndexingReader extends yauzl.RandomAccessReader {
  indexing: boolean;
  fingerprint(): string;
  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void;
  ref(): void;
  unref(): void;
}

export interface ZipArchive {
  /** A path, or the URL of a remote archive. */
  readonly file: string;
  readonly entryCount: number;
  /** A hash of the central directory and its end record: changes whenever the content does. */
  readonly fingerprint: string;
  get(name: string): ZipEntry | undefined;
  /** Every file entry's name (a legacy archive's `nodes/` tree is walked, not looked up). */
  names(): IterableIterator<string>;
  /** The file entries and the empty folders' (`out/`, kept as aiida-core's migration keeps them), in order. */
  entries(): Iterable<{ name: string; folder: boolean }>;
  /** A stream of the entry's uncompressed bytes; sizes are checked, so a damaged entry errors the stream. */
  openStream(name: string): Promise<Readable>;
  read(name: string): Promise<Buffer>;
  /**
   * A reader of many entries one after another, in the order they are in the file: small ones (the bytes, checked)
   * through a window of the file read once for many, larger ones as openStream gives them.
   */
  inOrder(): (name: string) => Promise<Buffer | Readable>;
  origin(): Promise<ZipOrigin>;
  close(): void;
}

export async function openZip(file: string): Promise<ZipArchive> {
  // A plain descriptor, not a FileHandle: Node closes a FileHandle it garbage-collects, and this descriptor
  // outlives every handle object (yauzl closes it through FileReader.close()).
  let fd: number;
  try {
    fd = await openFd(file, 'r');
  } catch (error) {
    throw asShortage(error, `the archive ${file}`) ?? new StorageOpenError(zipProblem(file, error));
  }
  let size: number;
  let head: Buffer;
  try {
    const info = await fstatFd(fd);
    if (info.isDirectory()) throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    size = info.size;
    head = Buffer.alloc(Math.min(size, 512));
    await readFd(fd, head, 0, head.length, 0);
  } catch (error) {
    await closeFd(fd);
    throw asShortage(error, `the archive ${file}`) ?? new StorageOpenError(zipProblem(file, error));
  }
  const reader = new FileReader(fd, size);
  const origin = async (): Promise<ZipOrigin> => {
    const info = await stat(file);
    return { size: info.size, stamp: String(info.mtimeMs), source: await sourcePath(file) };
  };
  try {
    return await zipFromReader(file, reader, size, origin);
  } catch (error) {
    throw asShortage(error, `the archive ${file}`) ?? new StorageOpenError(zipProblem(file, error, head));
  }
}

/**
 * A zip read through `reader` (a file's, or a remote archive's): its central directory indexed. Errors are
 * yauzl's or the reader's; the reader is closed on failure.
 */
export async function zipFromReader(
  file: string,
  reader: IndexingReader,
  size: number,
  origin: () => Promise<ZipOrigin>,
): Promise<ZipArchive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromRandomAccessReader(
        reader,
        size,
        { lazyEntries: true, autoClose: false, validateEntrySizes: true },
        (err, z) => (err ? reject(err) : resolve(z)),
      ),
    );
  } catch (error) {
    await new Promise((resolve) => reader.close(resolve));
    throw error;
  }
  try {
    return await indexEntries(file, zip, reader, origin);
  } catch (error) {
    zip.close();
    throw error;
  }
}

/** Whether a folder's name (ending in `/`) has six parts or more. */
function deepFolder(name: string): boolean {
  let parts = 0;
  for (let at = name.indexOf('/'); at !== -1; at = name.indexOf('/', at + 1)) if (++parts === 6) return true;
  return false;
}

async function indexEntries(
  file: string,
  zip: yauzl.ZipFile,
  reader: IndexingReader,
  origin: () => Promise<ZipOrigin>,
): Promise<ZipArchive> {
  const count = zip.entryCount;
  const positions = new NameIndex();
  // Sized for the files, not the entries: a legacy archive has two folder entries per node besides its files.
  let capacity = Math.min(count, 1 << 16);
  let localHeader = new Float64Array(capacity);
  let compressedSize = new Float64Array(capacity);
  let uncompressedSize = new Float64Array(capacity);
  let method = new Uint16Array(capacity);
  let checksum = new Uint32Array(capacity);
  let encrypted = new Uint8Array(capacity);
  const grow = () => {
    capacity = Math.min(count, capacity * 2);
    const wider = <T extends Float64Array | Uint16Array | Uint32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    localHeader = wider(localHeader, new Float64Array(capacity));
    compressedSize = wider(compressedSize, new Float64Array(capacity));
    uncompressedSize = wider(uncompressedSize, new Float64Array(capacity));
    method = wider(method, new Uint16Array(capacity));
    checksum = wider(checksum, new Uint32Array(capacity));
    encrypted = wider(encrypted, new Uint8Array(capacity));
  };
  // A folder entry not followed by one inside it is an empty folder: only those are kept (with the count of files
  // before them), not the entries of every folder of a legacy archive; and only those six or more deep, inside a
  // node's files (`nodes/ab/cd/ef…/raw_input/out/`), not the empty `path/` of every node without files (a million
  // in a large archive), which aiida-core's migration does not keep either.
  const emptyFolders: { name: string; at: number }[] = [];
  let folder: string | undefined;
  await new Promise<void>((resolve, reject) => {
    let i = 0;
    zip.on('entry', (entry: yauzl.Entry) => {
      if (folder !== undefined && !entry.fileName.startsWith(folder))
        emptyFolders.push({ name: folder, at: i });
      folder = entry.fileName.endsWith('/') && deepFolder(entry.fileName) ? entry.fileName : undefined;
      // Folder entries (`repo/`) hold nothing; leaving them out keeps `repo/` + '' from finding one.
      if (!entry.fileName.endsWith('/') && i < count) {
        if (i === capacity) grow();
        positions.set(entry.fileName, i);
        localHeader[i] = entry.relativeOffsetOfLocalHeader;
        compressedSize[i] = entry.compressedSize;
        uncompressedSize[i] = entry.uncompressedSize;
        method[i] = entry.compressionMethod;
        checksum[i] = entry.crc32;
        encrypted[i] = entry.generalPurposeBitFlag & ENCRYPTED_FLAG;
        i += 1;
      }
      zip.readEntry();
    });
    zip.once('end', () => {
      if (folder !== undefined) emptyFolders.push({ name: folder, at: i });
      resolve();
    });
    zip.once('error', reject);
    zip.readEntry();
  });
  reader.indexing = false;
  const fingerprint = reader.fingerprint();

  /**
   * A small entry in one positioned read of its local header and data, inflated at once and checked against
   * its size and CRC-32: no stream and no thread-pool round trip per chunk. The reader is referenced meanwhile,
   * as yauzl's own reads do, so a close() cannot release the descriptor under the read. Undefined when the
   * local header is longer than the room read ahead for it (a large extra field): the streamed path reads it.
   */
  const readSmall = async (name: string, i: number): Promise<Buffer | undefined> => {
    const buffer = Buffer.allocUnsafe(LOCAL_HEADER_ROOM + compressedSize[i]!);
    return fromLocalRecord(name, i, buffer, await readAt(buffer, localHeader[i]!));
  };

  const readAt = async (buffer: Buffer, position: number): Promise<number> => {
    reader.ref();
    try {
      return await new Promise<number>((resolve, reject) =>
        reader.read(buffer, 0, buffer.length, position, (err, n) => (err ? reject(err) : resolve(n ?? 0))),
      );
    } finally {
      reader.unref();
    }
  };

  /** Entry `i` from `buffer`, which holds the `got` bytes read from its local header on. */
  const fromLocalRecord = (name: string, i: number, buffer: Buffer, got: number): Buffer | undefined => {
    const size = compressedSize[i]!;
    const damaged = (why: string) =>
      new CorruptObjectError(`${name} is damaged in ${file} (${why}); export the archive again`);
    if (got < 30 || buffer.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw damaged('no local header');
    const start = 30 + buffer.readUInt16LE(26) + buffer.readUInt16LE(28);
    if (start + size > buffer.length) return undefined;
    if (start + size > got) throw damaged('it ends early');
    const stored = buffer.subarray(start, start + size);
    let data: Buffer;
    try {
      data =
        method[i] === DEFLATED
          ? inflateRawSync(stored, { maxOutputLength: uncompressedSize[i]! + 1 })
          : stored;
    } catch (error) {
      throw damaged((error as Error).message);
    }
    if (data.length !== uncompressedSize[i])
      throw damaged(`${data.length} bytes instead of ${uncompressedSize[i]}`);
    if (crc32(data) !== checksum[i]) throw damaged('its checksum does not match');
    return data;
  };

  const openAt = (name: string, i: number): Promise<Readable> =>
    new Promise((resolve, reject) => {
      const problem = unreadable(name, i);
      if (problem) return reject(problem);
      if (compressedSize[i]! > SMALL_ENTRY) return openStreamed(i, resolve, reject);
      readSmall(name, i).then(
        (data) => (data ? resolve(Readable.from([data])) : openStreamed(i, resolve, reject)),
        reject,
      );
    });

  /** openAt's checks, as an error (undefined when the entry can be read). */
  const unreadable = (name: string, i: number): Error | undefined => {
    if (!zip.isOpen) return new Error(`${file} is closed`);
    if (encrypted[i]) return new Error(`${name} is encrypted in ${file}`);
    const m = method[i]!;
    if (m !== STORED && m !== DEFLATED) {
      return new Error(`${name} uses zip compression method ${m}, which Quarry cannot read`);
    }
    return undefined;
  };

  const inOrder = () => {
    // The window: bytes of the file from `windowStart` on, read in one go for the many entries they hold.
    let window = Buffer.alloc(0);
    let windowStart = 0;
    let windowGot = 0;
    return async (name: string): Promise<Buffer | Readable> => {
      const i = positions.get(name);
      if (i === undefined) throw new Error(`${file} has no entry ${name}`);
      const problem = unreadable(name, i);
      if (problem) throw problem;
      const size = compressedSize[i]!;
      if (size <= SMALL_ENTRY) {
        const start = localHeader[i]!;
        const end = start + LOCAL_HEADER_ROOM + size;
        if (start < windowStart || end > windowStart + windowGot) {
          // One buffer, read into again and again (what was returned from it was copied out).
          if (window.length < end - start) window = Buffer.allocUnsafe(Math.max(WINDOW, end - start));
          windowStart = start;
          windowGot = await readAt(window, start);
        }
        const at = start - windowStart;
        const data = fromLocalRecord(
          name,
          i,
          window.subarray(at, at + LOCAL_HEADER_ROOM + size),
          Math.max(0, Math.min(windowGot - at, LOCAL_HEADER_ROOM + size)),
        );
        // A stored entry's bytes are the window's own, which the next read overwrites.
        if (data) return method[i] === STORED ? Buffer.from(data) : data;
      }
      return new Promise((resolve, reject) => openStreamed(i, resolve, reject));
    };
  };

  const openStreamed = (i: number, resolve: (stream: Readable) => void, reject: (error: Error) => void) => {
    // Checked here, in the same run as yauzl's ref(): after the small read's await, close() may have come.
    if (!zip.isOpen) return reject(new Error(`${file} is closed`));
    const m = method[i]!;
    // readLocalFileHeader needs only these two fields. openReadStreamLowLevel is called inside its
    // callback, while yauzl still holds a reference on the descriptor, so a concurrent close() cannot
    // release the descriptor between the two steps.
    const entry = Object.assign(new yauzl.Entry(), {
      relativeOffsetOfLocalHeader: localHeader[i]!,
      compressedSize: compressedSize[i]!,
    });
    zip.readLocalFileHeader(entry, { minimal: true }, (err, header) => {
      if (err) return reject(err);
      zip.openReadStreamLowLevel(
        header.fileDataStart,
        compressedSize[i]!,
        0,
        compressedSize[i]!,
        m === DEFLATED,
        uncompressedSize[i]!,
        (err2, stream) => (err2 ? reject(err2) : resolve(stream)),
      );
    });
  };

  const archive: ZipArchive = {
    file,
    entryCount: positions.size,
    fingerprint,
    get(name) {
      const i = positions.get(name);
      return i === undefined ? undefined : { name, size: uncompressedSize[i]! };
    },
    names() {
      return positions.keys();
    },
    *entries() {
      let next = 0;
      let i = 0;
      for (const name of positions.keys()) {
        while (next < emptyFolders.length && emptyFolders[next]!.at <= i)
          yield { name: emptyFolders[next++]!.name, folder: true };
        yield { name, folder: false };
        i += 1;
      }
      for (; next < emptyFolders.length; next++) yield { name: emptyFolders[next]!.name, folder: true };
    },
    inOrder,
    openStream(name) {
      const i = positions.get(name);
      if (i === undefined) return Promise.reject(new Error(`${file} has no entry ${name}`));
      return openAt(name, i);
    },
    async read(name) {
      const chunks: Buffer[] = [];
      for await (const chunk of await archive.openStream(name)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    origin,
    close() {
      zip.close();
    },
  };
  return archive;
}

/** One line for a zip that cannot be opened, saying what the file is and what to do. */
export function zipProblem(file: string, error: unknown, head?: Buffer): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return `${file}: no such file`;
  if (code === 'EISDIR') return `${file} is a folder, not an .aiida archive file`;
  if (code === 'EACCES' || code === 'EPERM') return `${file} cannot be read (permission denied)`;
  const detail = oneLine(error instanceof Error ? error.message : String(error));
  if (head && isTar(head)) {
    return `${file} is a tar or gzip file, not a zip; if it is an AiiDA 1.x export, convert it with 'verdi archive migrate ${file} new.aiida' (AiiDA 2.x) and serve new.aiida`;
  }
  if (/end of central directory record signature not found/i.test(detail)) {
    if (head?.subarray(0, 4).equals(ZIP_MAGIC)) {
      return `${file} is a truncated zip (its central directory is missing); copy or download the archive again`;
    }
    return `${file} is not a zip file; an .aiida archive is the zip written by 'verdi archive create'`;
  }
  return `${file} is a damaged zip (${detail}); copy or export the archive again`;
}

const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');

function isTar(head: Buffer): boolean {
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const ustar = head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';
  return gzip || ustar;
}

/**
 * A value of an archive as a message shows it: its JSON, cut to `max` characters (a 10 MB export_version must not
 * make a 10 MB message).
 */
export function shownValue(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? 'a list' : typeof value;
  }
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/** Whether `value` nests containers deeper than `max` (walked without recursion: a deep one is what is looked for). */
export function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
