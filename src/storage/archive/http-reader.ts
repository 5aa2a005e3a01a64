/**
 * A yauzl RandomAccessReader over an archive at an http(s) URL, read with range requests.
 *
 * Every request after the first is conditional (If-Range on the validator the first answer gave: a strong ETag,
 * else Last-Modified), so a file replaced on its server is answered with the whole new file (200) instead of a
 * part of it, and the read fails with RemoteChangedError instead of mixing two files. The answer's Content-Range
 * and ETag are checked as well.
 *
 * While indexing, reads come from the file's tail (fetched when opened) and 1 MiB windows, all hashed: the
 * fingerprint of the central directory, as FileReader's. Afterwards, small reads go through 64 KiB blocks kept in
 * the process's bounded cache (byte-cache.ts); long ranges (the database's entry, large repository files) are
 * streamed straight from one request, never cached.
 */
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { remoteBlocks, type ByteCache } from './byte-cache.js';
import {
  badStatus,
  noRanges,
  RemoteArchiveError,
  RemoteChangedError,
  shownUrl,
  unreachable,
  UNREACHABLE_RETRY_S,
} from './remote-errors.js';

const BLOCK = 64 << 10;
const WINDOW = 1 << 20;
/** Fetched when opened: the end-of-central-directory record (at most 64 kB from the end) and, mostly, the directory. */
const TAIL = 1 << 20;
/** Ranges longer than this are streamed from their own request. */
const STREAM_OVER = 4 * BLOCK;
/**
 * Deadlines of every read (tests shorten them). `answerMs`: the longest wait for a server's answer (its headers),
 * and for the whole of a part of at most a few MiB. A longer range (the database's entry, data.json, a tar.gz
 * downloaded) must bring `minBytes` (or its rest) in every `idleMs`: a server that stalls or drips mid-body fails
 * the read with a 503 within `idleMs`, and a range of N bytes ends within N / minBytes * idleMs at most. `checkMs`:
 * the longest wait for the answer to a check (HEAD): while a server hangs every check waits this long, so it is
 * short (requests during a check share it).
 */
export const remoteDeadlines = { answerMs: 20_000, idleMs: 20_000, minBytes: 64 << 10, checkMs: 5_000 };

/** Every request under way, so that a server stopping ends them rather than waits on them. */
const live = new Set<AbortController>();
const STOPPING = 'the server is stopping';

/** Ends every remote read under way (the server stops): each fails with a 503. */
export function abortRemoteReads(): void {
  for (const controller of live) controller.abort(new DOMException(STOPPING, 'AbortError'));
}

/** `work` with a controller that abortRemoteReads() reaches, for as long as it runs. */
async function tracked<T>(work: (controller: AbortController) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  live.add(controller);
  try {
    return await work(controller);
  } finally {
    live.delete(controller);
  }
}

type ReadCallback = (err: Error | null, bytesRead?: number) => void;

const traffic = { requests: 0 };

/** Requests this process made to the servers of remote archives (for the metrics). */
export function remoteRequests(): number {
  return traffic.requests;
}

/** What identifies the file on its server: a replaced file has another. */
export interface RemoteVersion {
  size: number;
  etag?: string;
  lastModified?: string;
}

export function versionText(v: RemoteVersion): string {
  return `${v.size}\0${v.etag ?? ''}\0${v.lastModified ?? ''}`;
}

/** The first look at a remote archive: its version and its last bytes. */
export function probeRemote(url: string): Promise<{ version: RemoteVersion; tail: Buffer }> {
  return tracked((controller) => probe(url, controller));
}

async function probe(
  url: string,
  controller: AbortController,
): Promise<{ version: RemoteVersion; tail: Buffer }> {
  const res = await answer(url, 'GET', { Range: `bytes=-${TAIL}` }, controller, true);
  if (res.status === 200) {
    await res.body?.cancel();
    throw noRanges(url);
  }
  if (res.status === 416) {
    await res.body?.cancel();
    throw new RemoteArchiveError(`${shownUrl(url)} is an empty file, not an .aiida archive`, 502);
  }
  if (res.status !== 206) {
    await res.body?.cancel();
    throw badStatus(url, res.status, res.statusText);
  }
  const range = contentRange(res.headers.get('content-range'));
  if (range === undefined) {
    await res.body?.cancel();
    throw new RemoteArchiveError(
      `${shownUrl(url)}: its server answered a range without a valid Content-Range`,
      502,
    );
  }
  const etag = res.headers.get('etag') ?? undefined;
  const lastModified = res.headers.get('last-modified') ?? undefined;
  const version: RemoteVersion = {
    size: range.total,
    ...(etag === undefined ? {} : { etag }),
    ...(lastModified === undefined ? {} : { lastModified }),
  };
  if (validator(version) === undefined) {
    await res.body?.cancel();
    throw new RemoteArchiveError(
      `${shownUrl(url)}: its server gives neither a strong ETag nor Last-Modified, so a replaced file could not be told from the one opened; Quarry serves remote archives only from servers that give one`,
      502,
    );
  }
  const tail = Buffer.from(await res.arrayBuffer().catch((e: unknown) => lostRead(url, e, controller)));
  if (tail.length !== range.end - range.start + 1) throw new RemoteChangedError(url, 'a short answer');
  return { version, tail };
}

/** The version the server has now (one HEAD request); `size` undefined where the server did not say it. */
export async function currentVersion(url: string): Promise<Omit<RemoteVersion, 'size'> & { size?: number }> {
  const res = await tracked((controller) =>
    answer(url, 'HEAD', {}, controller, false, remoteDeadlines.checkMs),
  );
  if (res.status !== 200) throw badStatus(url, res.status, res.statusText);
  // Without a length (some servers leave it out of HEAD answers) the validators alone decide.
  const length = res.headers.get('content-length');
  const size = length === null || !/^\d+$/.test(length) ? undefined : Number(length);
  const etag = res.headers.get('etag') ?? undefined;
  const lastModified = res.headers.get('last-modified') ?? undefined;
  return {
    ...(size === undefined ? {} : { size }),
    ...(etag === undefined ? {} : { etag }),
    ...(lastModified === undefined ? {} : { lastModified }),
  };
}

/** The value of If-Range: a strong ETag, else the Last-Modified date (weak ETags cannot be used there). */
function validator(v: RemoteVersion): string | undefined {
  if (v.etag !== undefined && !v.etag.startsWith('W/')) return v.etag;
  return v.lastModified;
}

/**
 * A request whose answer must begin within `waitMs`; with `whole`, it must also end by then (a part of at most a
 * few MiB: a server that stalls mid-answer fails the read instead of holding it for ever). `controller` ends it.
 */
async function answer(
  url: string,
  method: string,
  headers: Record<string, string>,
  controller: AbortController,
  whole = false,
  waitMs = remoteDeadlines.answerMs,
): Promise<Response> {
  const timer = setTimeout(() => controller.abort(new DOMException('no answer', 'TimeoutError')), waitMs);
  traffic.requests += 1;
  try {
    // Identity: a compressed answer's bytes are not the file's.
    return await fetch(url, {
      method,
      headers: { ...headers, 'Accept-Encoding': 'identity' },
      signal: controller.signal,
      redirect: 'follow',
    });
  } catch (error) {
    throw stopped(url, controller) ?? unreachable(url, error);
  } finally {
    // A whole answer's body is bound by the same deadline, its timer left running.
    if (!whole) clearTimeout(timer);
    else timer.unref();
  }
}

/** The failure of a read that abortRemoteReads() ended, else undefined. */
function stopped(url: string, controller: AbortController): RemoteArchiveError | undefined {
  const reason = controller.signal.reason as Error | undefined;
  if (reason?.message !== STOPPING) return undefined;
  return new RemoteArchiveError(`${shownUrl(url)} was being read when the server stopped; try again`, 503, 1);
}

/** A body that broke off: the network, a server that stalled or dripped, or the server stopping. */
function lostRead(url: string, error: unknown, controller?: AbortController): never {
  const stop = controller && stopped(url, controller);
  if (stop) throw stop;
  const name = (error as Error).name;
  const why =
    name === 'TimeoutError'
      ? `its server stopped sending it midway (less than ${remoteDeadlines.minBytes} bytes in ${remoteDeadlines.idleMs / 1000} s)`
      : 'the connection broke while it was read';
  throw new RemoteArchiveError(`${shownUrl(url)}: ${why}; try again`, 503, UNREACHABLE_RETRY_S);
}

function contentRange(header: string | null): { start: number; end: number; total: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header?.trim() ?? '');
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) };
}

export class HttpReader extends yauzl.RandomAccessReader {
  /** yauzl's reference count (inherited, missing from its type declarations). */
  declare ref: () => void;
  declare unref: () => void;
  indexing = true;
  /** Set once an answer showed that the file on the server is no longer the one opened. */
  changed = false;
  private tail: Buffer | undefined;
  private window: Buffer | undefined;
  private windowStart = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly key: string;
  private readonly inflight = new Map<number, Promise<Buffer>>();
  private readonly ifRange: string;

  constructor(
    readonly url: string,
    readonly version: RemoteVersion,
    tail: Buffer,
    private readonly cache: ByteCache = remoteBlocks,
  ) {
    super();
    this.tail = tail;
    this.hash.update(tail);
    this.key = `${url}\0${versionText(version)}\0`;
    this.ifRange = validator(version)!;
  }

  get size(): number {
    return this.version.size;
  }

  /** The hash of everything read while indexing; call once, after indexing. */
  fingerprint(): string {
    this.tail = undefined;
    this.window = undefined;
    return this.hash.digest('hex');
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: ReadCallback,
  ): void {
    this.bytes(position, length).then(
      (data) => {
        data.copy(buffer, offset);
        callback(null, data.length);
      },
      (error: Error) => callback(error),
    );
  }

  /** Bytes [position, position + length) of the file (fewer at its end). */
  async bytes(position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, this.size);
    if (end <= position) return Buffer.alloc(0);
    const tailStart = this.size - (this.tail?.length ?? 0);
    if (this.tail !== undefined && position >= tailStart) {
      return this.tail.subarray(position - tailStart, end - tailStart);
    }
    if (this.indexing) return this.fromWindow(position, end);
    const first = Math.floor(position / BLOCK);
    const last = Math.floor((end - 1) / BLOCK);
    const blocks = await Promise.all(this.blocks(first, last));
    const joined = blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks);
    return joined.subarray(position - first * BLOCK, end - first * BLOCK);
  }

  private async fromWindow(position: number, end: number): Promise<Buffer> {
    const w = this.window;
    if (w === undefined || position < this.windowStart || end > this.windowStart + w.length) {
      const stop = Math.min(this.size, Math.max(end, position + WINDOW));
      this.window = await this.range(position, stop);
      this.windowStart = position;
      this.hash.update(this.window);
    }
    return this.window!.subarray(position - this.windowStart, end - this.windowStart);
  }

  /** Blocks first..last: from the cache, from a request under way, or fetched (each run of missing ones at once). */
  private blocks(first: number, last: number): Promise<Buffer>[] {
    const out: Promise<Buffer>[] = [];
    let runStart = -1;
    const flush = (upTo: number) => {
      if (runStart < 0) return;
      const start = runStart;
      runStart = -1;
      const whole = this.range(start * BLOCK, Math.min(this.size, (upTo + 1) * BLOCK));
      for (let b = start; b <= upTo; b++) {
        const block = whole.then((data) => {
          const view = data.subarray((b - start) * BLOCK, (b - start + 1) * BLOCK);
          // A copy where the answer held several blocks: a kept block holds only its own bytes.
          const part = upTo > start ? Buffer.from(view) : view;
          this.cache.set(this.key + b, part);
          return part;
        });
        const forget = () => {
          if (this.inflight.get(b) === block) this.inflight.delete(b);
        };
        block.then(forget, forget);
        this.inflight.set(b, block);
        out[b - first] = block;
      }
    };
    for (let b = first; b <= last; b++) {
      const known = this.cache.get(this.key + b);
      const pending = known === undefined ? this.inflight.get(b) : undefined;
      if (known !== undefined || pending !== undefined) {
        flush(b - 1);
        out[b - first] = known !== undefined ? Promise.resolve(known) : pending!;
      } else if (runStart < 0) runStart = b;
    }
    flush(last);
    return out;
  }

  /** Bytes [start, end) in one conditional range request. */
  private range(start: number, end: number): Promise<Buffer> {
    return tracked(async (controller) => {
      const res = await this.ask(start, end, controller, true);
      const body = await res.arrayBuffer().catch((e: unknown) => lostRead(this.url, e, controller));
      const data = Buffer.from(body);
      if (data.length !== end - start) throw this.changedNow('a short answer');
      return data;
    });
  }

  /** A conditional range request whose answer is checked to be that part of the file opened. */
  private async ask(
    start: number,
    end: number,
    controller: AbortController,
    whole = false,
  ): Promise<Response> {
    if (this.changed) throw new RemoteChangedError(this.url, 'seen before');
    const res = await answer(
      this.url,
      'GET',
      { Range: `bytes=${start}-${end - 1}`, 'If-Range': this.ifRange },
      controller,
      whole,
    );
    if (res.status === 206) {
      const range = contentRange(res.headers.get('content-range'));
      const etag = res.headers.get('etag');
      let problem: string | undefined;
      if (range === undefined || range.start !== start || range.end !== end - 1) problem = 'another range';
      else if (range.total !== this.size) problem = `${range.total} bytes instead of ${this.size}`;
      else if (etag !== null && this.version.etag !== undefined && etag !== this.version.etag)
        problem = 'another ETag';
      if (problem === undefined) return res;
      await res.body?.cancel();
      throw this.changedNow(problem);
    }
    await res.body?.cancel();
    // If-Range not matched: the server sends the whole (new) file. 412 and 416 say the same in other words.
    if (res.status === 200 || res.status === 412 || res.status === 416) {
      throw this.changedNow(`answered ${res.status} to a conditional range request`);
    }
    throw badStatus(this.url, res.status, res.statusText);
  }

  private changedNow(what: string): RemoteChangedError {
    this.changed = true;
    this.cache.drop(this.key);
    return new RemoteChangedError(this.url, what);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    if (end - start <= STREAM_OVER) {
      const read = this.bytes(start, end - start);
      return Readable.from(
        (async function* () {
          yield await read;
        })(),
      );
    }
    return Readable.from(this.streamed(start, end), { objectMode: false });
  }

  /**
   * A long range from its own request, passed on as it arrives, at least `minBytes` in every `idleMs`
   * (remoteDeadlines); its length is checked at the end.
   */
  private async *streamed(start: number, end: number): AsyncGenerator<Buffer> {
    const controller = new AbortController();
    live.add(controller);
    const { idleMs, minBytes } = remoteDeadlines;
    const arm = () => setTimeout(() => controller.abort(new DOMException('stalled', 'TimeoutError')), idleMs);
    let timer: NodeJS.Timeout | undefined;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let got = 0;
    try {
      const res = await this.ask(start, end, controller);
      reader = res.body!.getReader();
      timer = arm();
      let since = 0;
      for (;;) {
        const { done, value } = await reader.read().catch((e: unknown) => lostRead(this.url, e, controller));
        if (done) break;
        got += value.length;
        since += value.length;
        if (since >= minBytes) {
          clearTimeout(timer);
          timer = arm();
          since = 0;
        }
        yield Buffer.from(value.buffer, value.byteOffset, value.length);
      }
    } finally {
      clearTimeout(timer);
      live.delete(controller);
      // Also when the reader of the stream stopped early: the rest is not downloaded.
      await reader?.cancel().catch(() => undefined);
    }
    if (got !== end - start) {
      throw new RemoteArchiveError(
        `${shownUrl(this.url)}: its server ended the answer after ${got} of ${end - start} bytes; try again`,
        503,
        UNREACHABLE_RETRY_S,
      );
    }
  }

  override close(callback: (err: Error | null) => void): void {
    this.cache.drop(this.key);
    callback(null);
  }
}
