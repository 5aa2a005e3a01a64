/**
 * A tar.gz written as a stream (ustar headers; the other container AiiDA 0.x and 1.x wrote their exports in).
 * A tar header gives the entry's size before its data, so a streamed entry (data.json) is spooled to a scratch
 * file first and copied in after.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rm, stat } from 'node:fs/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { CountingFile, ENTRY_TIME, type ArchiveSink } from './sink.js';

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A ustar header; names past 100 bytes are split into prefix and name at a '/'. */
function header(name: string, size: number, directory: boolean): Buffer {
  const block = Buffer.alloc(512);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`path too long for a tar archive: ${name}`);
  }
  block.write(base, 0, 100);
  block.write(octal(directory ? 0o755 : 0o644, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(Math.floor(ENTRY_TIME.getTime() / 1000), 12), 136);
  block.write('        ', 148);
  block.write(directory ? '5' : '0', 156);
  block.write('ustar\u000000', 257, 'latin1');
  block.write(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

const padding = (size: number) => Buffer.alloc((512 - (size % 512)) % 512);

export class TarGzWriter implements ArchiveSink {
  private readonly gzip: Gzip;
  private readonly output: CountingFile;
  private readonly pumping: Promise<void>;

  constructor(private readonly path: string) {
    const gzip = createGzip();
    const output = new CountingFile(path);
    this.gzip = gzip;
    this.output = output;
    this.pumping = (async () => {
      for await (const chunk of gzip as AsyncIterable<Buffer>) await output.write(chunk);
    })();
    this.pumping.catch(() => {});
  }

  private async write(chunk: Buffer) {
    if (!this.gzip.write(chunk)) await once(this.gzip, 'drain');
  }

  async directory(name: string): Promise<void> {
    await this.write(header(name.endsWith('/') ? name : `${name}/`, 0, true));
  }

  async file(name: string, content: Buffer): Promise<void> {
    await this.write(header(name, content.length, false));
    await this.write(content);
    await this.write(padding(content.length));
  }

  async stream(name: string, source: Iterable<string>): Promise<void> {
    const spool = `${this.path}.${name.replace(/\W/g, '_')}.tmp`;
    try {
      const out = createWriteStream(spool);
      for (const text of source) if (!out.write(text)) await once(out, 'drain');
      out.end();
      await once(out, 'close');
      const { size } = await stat(spool);
      await this.write(header(name, size, false));
      for await (const chunk of createReadStream(spool) as AsyncIterable<Buffer>) await this.write(chunk);
      await this.write(padding(size));
    } finally {
      await rm(spool, { force: true });
    }
  }

  async close(): Promise<void> {
    await this.write(Buffer.alloc(1024));
    this.gzip.end();
    await this.pumping;
    await this.output.end();
  }

  async abort(): Promise<void> {
    this.gzip.destroy();
    await this.output.destroy();
    await rm(this.path, { force: true });
  }
}
