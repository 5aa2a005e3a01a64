/**
 * Hostile legacy archives, small on disk: a data.json whose one attribute (or key, or label) is hundreds of
 * megabytes of one repeated run, written as a stream into a zip or a tar.gz (it compresses a thousand times),
 * around the tiny export of legacy-files.ts.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import yazl from 'yazl';
import { tinyEntries, tinyExport, type Entries } from './legacy-files.js';

/** A JSON text given as its parts; a part `{ repeat, times }` is one run written `times` times. */
export type Part = string | { repeat: string; times: number };

const MARK = '"@@hostile@@"';

/**
 * tinyExport()'s data.json, with the value `"@@hostile@@"` where `edit` put it replaced by `parts`: e.g.
 * `(d) => (d.node_attributes['3'] = { energy: '@@hostile@@' })` and `[{ repeat: '1', times: 1e8 }]`.
 */
export function hostileData(edit: (data: ReturnType<typeof tinyExport>['data']) => void, parts: Part[]) {
  const data = tinyExport().data;
  edit(data);
  const text = JSON.stringify(data);
  const at = text.indexOf(MARK);
  if (at === -1) throw new Error('the edit put no "@@hostile@@" in data.json');
  return [text.slice(0, at), ...parts, text.slice(at + MARK.length)];
}

/** The parts' bytes as a stream of chunks of about 1 MiB. */
function stream(parts: Part[]): Readable {
  function* chunks() {
    for (const part of parts) {
      if (typeof part === 'string') yield Buffer.from(part);
      else {
        const per = Math.max(1, Math.floor((1 << 20) / part.repeat.length));
        const block = Buffer.from(part.repeat.repeat(Math.min(per, part.times)));
        for (let left = part.times; left > 0; left -= per) {
          yield left >= per ? block : Buffer.from(part.repeat.repeat(left));
        }
      }
    }
  }
  return Readable.from(chunks());
}

function size(parts: Part[]): number {
  let n = 0;
  for (const p of parts) n += typeof p === 'string' ? Buffer.byteLength(p) : p.repeat.length * p.times;
  return n;
}

/** A zip (`.aiida`) of tinyEntries() whose data.json is `parts`. */
export async function hostileZip(file: string, parts: Part[], metadata?: unknown): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(tinyEntries(undefined, metadata))) {
    if (name === 'data.json') zip.addReadStream(stream(parts), name, { size: size(parts) });
    else zip.addBuffer(Buffer.from(data), name);
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

/** A tar.gz of `entries` in order, each a text or parts (the same name may come twice). */
export async function hostileTarGz(
  file: string,
  entries: [string, string | Buffer | Part[]][],
): Promise<void> {
  const pack = tarStream.pack();
  const written = pipeline(pack, createGzip({ level: 1 }), createWriteStream(file));
  for (const [name, content] of entries) {
    const parts = Array.isArray(content) ? content : [content.toString()];
    await new Promise<void>((resolve, reject) => {
      const entry = pack.entry({ name, size: size(parts) }, (error) => (error ? reject(error) : resolve()));
      stream(parts).pipe(entry);
    });
  }
  pack.finalize();
  await written;
}

/** A ustar header of a regular file `name` of `size` bytes (up to 8 GiB). */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  const field = (at: number, width: number, value: number) =>
    header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, 'latin1');
  header.write(name, 0, 'utf8');
  field(100, 8, 0o644);
  field(108, 8, 0);
  field(116, 8, 0);
  field(124, 12, size);
  field(136, 12, 0);
  header.write('0', 156, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

/**
 * A gzip bomb: a tar.gz whose first entry (`name`, outside what a legacy archive holds) is `gib` GiB of zeros,
 * followed by `entries`. Its gzip is many members, one compressed block of zeros written again and again, so
 * that it is written in a moment and is about a thousandth of what it inflates to.
 */
export async function bombTarGz(file: string, name: string, gib: number, entries: Entries): Promise<void> {
  const block = 64 << 20;
  const count = Math.ceil((gib * 2 ** 30) / block);
  const zeros = gzipSync(Buffer.alloc(block), { level: 9 });
  const header = tarHeader(name, count * block);
  const pack = tarStream.pack();
  for (const [n, data] of Object.entries(entries)) pack.entry({ name: n }, Buffer.from(data));
  pack.finalize();
  const rest: Buffer[] = [];
  for await (const chunk of pack) rest.push(chunk as Buffer);
  const out = createWriteStream(file);
  out.write(gzipSync(header));
  for (let k = 0; k < count; k++) out.write(zeros);
  out.end(gzipSync(Buffer.concat(rest)));
  await finished(out);
}
