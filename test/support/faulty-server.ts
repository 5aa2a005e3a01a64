/**
 * A file server on 127.0.0.1 answering ranges with a strong ETag, as Quarry asks of one, whose long answers
 * (more than `over` bytes: a zip's data.json streamed, a tar.gz downloaded) go wrong midway as told: `stall`
 * (nothing more, the connection left open), `drip` (one byte every 100 ms), `cut` (the connection closed).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export type Fault = 'stall' | 'drip' | 'cut' | 'none';

export interface FaultyServer {
  url(name: string): string;
  /** Long answers begun, by fault. */
  faulted: number;
  close(): Promise<void>;
}

export async function faultyServer(
  folder: string,
  fault: () => Fault,
  over = 256 << 10,
): Promise<FaultyServer> {
  const timers = new Set<NodeJS.Timeout>();
  const state = { faulted: 0 };
  const server = createServer((req, res) => {
    let data: Buffer;
    try {
      data = readFileSync(join(folder, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const etag = `"${data.length}-fixed"`;
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    const ifRange = req.headers['if-range'];
    if (!range || (ifRange !== undefined && ifRange !== etag)) {
      res.writeHead(200, { 'content-length': data.length, etag });
      res.end(req.method === 'HEAD' ? undefined : data);
      return;
    }
    const [start, end] =
      range[1] === ''
        ? [Math.max(0, data.length - Number(range[2])), data.length - 1]
        : [Number(range[1]), range[2] === '' ? data.length - 1 : Math.min(Number(range[2]), data.length - 1)];
    const body = data.subarray(start, end + 1);
    res.writeHead(206, {
      'content-range': `bytes ${start}-${end}/${data.length}`,
      'content-length': body.length,
      etag,
    });
    const how = body.length > over ? fault() : 'none';
    if (how === 'none') {
      res.end(body);
      return;
    }
    state.faulted++;
    const half = body.length >> 1;
    res.write(body.subarray(0, half));
    if (how === 'cut') setTimeout(() => res.destroy(), 50);
    if (how === 'drip') {
      let at = half;
      const drip = setInterval(() => {
        if (at >= body.length || res.destroyed) {
          clearInterval(drip);
          timers.delete(drip);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(body.subarray(at, ++at));
      }, 100);
      timers.add(drip);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${encodeURIComponent(name)}`,
    get faulted() {
      return state.faulted;
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
