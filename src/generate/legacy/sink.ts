/** Where a legacy archive's entries go: a zip (zip-writer.ts) or a tar.gz (tar-writer.ts), one entry after the other. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

export interface ArchiveSink {
  directory(name: string): Promise<void>;
  file(name: string, content: Buffer): Promise<void>;
  /** A large entry whose text is produced as it is written (data.json), never held whole. */
  stream(name: string, source: Iterable<string>): Promise<void>;
  /** Finish the archive and close the file. */
  close(): Promise<void>;
  /** Close the file and leave it unfinished (the caller removes it). */
  abort(): Promise<void>;
}

/** The modification time of every entry: fixed, so that the same seed writes the same bytes. */
export const ENTRY_TIME = new Date(Date.UTC(2026, 0, 1));

/** A file written in order, with its offset counted and the writer's back-pressure respected. */
export class CountingFile {
  private readonly out: WriteStream;
  offset = 0;

  constructor(path: string) {
    this.out = createWriteStream(path);
  }

  async write(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  async end(): Promise<void> {
    this.out.end();
    await once(this.out, 'close');
  }

  async destroy(): Promise<void> {
    if (this.out.closed) return;
    const closed = once(this.out, 'close');
    this.out.destroy();
    await closed;
  }
}
