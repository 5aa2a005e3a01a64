/**
 * An `.aiida` archive at an http(s) URL: its central directory read by range (http-reader.ts), and a watch on
 * whether the server still has the file that was opened.
 *
 * The watch asks the server (one HEAD) when the archive is opened and then at most every `revalidateMs`
 * (default 10 s), on the first request after that interval; an answer seen mid-read that shows another file
 * settles it at once. A replaced file makes the archive `replaced`: its source is opened anew (a new copy of its
 * database extracted), while requests under way finish on the old one. A server that cannot be reached makes
 * the check fail with a 503: without it, the data could not be vouched for.
 */
import { StorageOpenError } from '../types.js';
import { HttpReader, currentVersion, probeRemote, versionText } from './http-reader.js';
import { RemoteArchiveError, shownUrl } from './remote-errors.js';
import { startsAsTarball } from './legacy/tar-unpack.js';
import { zipFromReader, zipProblem, type ZipArchive, type ZipOrigin } from './zip.js';

/** Default interval between two checks of a remote archive's version. */
export const REVALIDATE_MS = 10_000;

export function isRemote(file: string): boolean {
  return /^https?:\/\//i.test(file);
}

export interface RemoteZip {
  zip: ZipArchive;
  reader: HttpReader;
}

/** An AiiDA 1.x tar.gz (or tar) at a URL: downloaded whole when converted (legacy/open.ts). */
export interface RemoteTar {
  tar: HttpReader;
  origin: ZipOrigin;
}

/** The zip at `url`, or, where the file is no zip but starts as a gzip or a tar does, that tarball. */
export async function openRemoteZip(url: string): Promise<RemoteZip | RemoteTar> {
  const { version, tail } = await probeRemote(url);
  const reader = new HttpReader(url, version, tail);
  // Named in messages and the cache without a query string, which may hold a token.
  const shown = shownUrl(url);
  const origin: ZipOrigin = {
    size: version.size,
    stamp: `${version.etag ?? ''}\0${version.lastModified ?? ''}`,
    source: shown,
  };
  try {
    return { zip: await zipFromReader(shown, reader, version.size, async () => origin), reader };
  } catch (error) {
    if (error instanceof RemoteArchiveError) throw error;
    // The reader was closed with the zip; a new one reads the head (and, converted, the whole file).
    const tar = new HttpReader(url, version, tail);
    const isTar = await startsAsTar(tar, version.size);
    // Ends its indexing: the tail and the window read ahead for a zip's directory are let go.
    tar.fingerprint();
    tar.indexing = false;
    if (isTar) return { tar, origin };
    throw new StorageOpenError(zipProblem(shown, error));
  }
}

async function startsAsTar(reader: HttpReader, size: number): Promise<boolean> {
  const head = Buffer.alloc(Math.min(size, 512));
  const got = await new Promise<number>((resolve, reject) =>
    reader.read(head, 0, head.length, 0, (err, n) => (err ? reject(err) : resolve(n ?? 0))),
  );
  return startsAsTarball(head.subarray(0, got));
}

/** Whether the server still has the file opened; checks at most every `intervalMs`. */
export class RemoteWatch {
  private checkedAt: number;
  private checking: Promise<'current' | 'replaced'> | undefined;
  private replaced = false;

  constructor(
    private readonly reader: HttpReader,
    private readonly intervalMs = REVALIDATE_MS,
  ) {
    // Opened just now, from answers that named the version.
    this.checkedAt = Date.now();
  }

  /** Whether revalidate() would ask the server (or knows already that the file was replaced). */
  due(): boolean {
    return this.replaced || this.reader.changed || Date.now() - this.checkedAt >= this.intervalMs;
  }

  /** 'replaced' once the server has another file; rejects with a 503 while the server cannot be reached. */
  revalidate(): Promise<'current' | 'replaced'> {
    if (this.replaced || this.reader.changed) {
      this.replaced = true;
      return Promise.resolve('replaced');
    }
    if (!this.due()) return Promise.resolve('current');
    // Concurrent requests share one check.
    this.checking ??= this.ask().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async ask(): Promise<'current' | 'replaced'> {
    const now = await currentVersion(this.reader.url);
    this.checkedAt = Date.now();
    const opened = this.reader.version;
    if (versionText({ ...now, size: now.size ?? opened.size }) === versionText(opened)) return 'current';
    this.replaced = true;
    return 'replaced';
  }
}
