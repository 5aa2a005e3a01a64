/**
 * A whole file as a download: a strong ETag (given by the caller: what the bytes are), 304 for a matching
 * If-None-Match, and single byte ranges (206, or 416 for a range outside the file), so that an interrupted
 * download of a large archive is resumed rather than begun again.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';

export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: string,
  etag: string,
  filename: string,
): Promise<FastifyReply> {
  const size = (await stat(file)).size;
  reply.header('ETag', etag);
  reply.header('Accept-Ranges', 'bytes');
  reply.header('Cache-Control', 'public, max-age=300');
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((t) => t.trim() === etag || t.trim() === '*'))
    return reply.code(304).send();
  reply.header('Content-Type', 'application/zip');
  reply.header('Content-Disposition', `attachment; filename="${filename}"`);
  const range = request.headers.range;
  const ifRange = request.headers['if-range'];
  if (range !== undefined && (ifRange === undefined || ifRange === etag)) {
    const bounds = byteRange(range, size);
    if (bounds === 'unsatisfiable') {
      reply.header('Content-Range', `bytes */${size}`);
      return reply
        .code(416)
        .type('application/json; charset=utf-8')
        .send({ message: `the range ${range} is outside the file of ${size} bytes` });
    }
    if (bounds !== undefined) {
      const [start, end] = bounds;
      reply.header('Content-Range', `bytes ${start}-${end}/${size}`);
      reply.header('Content-Length', String(end - start + 1));
      return reply.code(206).send(createReadStream(file, { start, end }));
    }
  }
  reply.header('Content-Length', String(size));
  if (request.method === 'HEAD') return reply.send();
  return reply.send(createReadStream(file));
}

/** One range of a Range header; several ranges, or another unit, are answered with the whole file. */
function byteRange(header: string, size: number): [number, number] | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (m === null) return undefined;
  const [, from = '', to = ''] = m;
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}
