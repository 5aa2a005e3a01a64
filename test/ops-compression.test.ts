/** gzip and brotli: chosen from Accept-Encoding, the identical bytes once decoded, only where it is worth it. */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROTLI_FROM, chooseCoding, isCompressedFormat } from '../src/ops/compression.js';
import { sharedArchive } from './conformance/corpus.js';
import { listeningOn, smallArchive } from './helpers.js';
import { httpGet, type BytesAnswer } from './support/http-get.js';

describe('choosing a coding', () => {
  it('takes the best q-value of br and gzip, br for big answers when both are alike, none when neither', () => {
    const small = 4096;
    const big = BROTLI_FROM;
    expect(chooseCoding('gzip, deflate, br', small)).toBe('gzip');
    expect(chooseCoding('gzip, deflate, br', big)).toBe('br');
    expect(chooseCoding('br', small)).toBe('br');
    expect(chooseCoding('gzip', big)).toBe('gzip');
    expect(chooseCoding('x-gzip', small)).toBe('gzip');
    expect(chooseCoding('br;q=0.5, gzip;q=0.8', big)).toBe('gzip');
    expect(chooseCoding('br;q=1, gzip;q=0.8', small)).toBe('br');
    expect(chooseCoding('br;q=0, gzip;q=0', small)).toBeUndefined();
    expect(chooseCoding('*', big)).toBe('br');
    expect(chooseCoding('*;q=0.1, br;q=0', big)).toBe('gzip');
    expect(chooseCoding('identity', small)).toBeUndefined();
    expect(chooseCoding('deflate', small)).toBeUndefined();
    expect(chooseCoding('', small)).toBeUndefined();
    expect(chooseCoding(undefined, small)).toBeUndefined();
    expect(chooseCoding('br;q=nonsense, gzip', big)).toBe('gzip');
  });

  it('knows compressed formats by their first bytes', () => {
    expect(isCompressedFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]))).toBe(true);
    expect(isCompressedFormat(Buffer.from('%PDF-1.4\n'))).toBe(true);
    expect(isCompressedFormat(Buffer.from([0x1f, 0x8b, 0x08, 0]))).toBe(true);
    expect(isCompressedFormat(Buffer.from('PK\x03\x04rest'))).toBe(true);
    expect(isCompressedFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe(true);
    expect(isCompressedFormat(Buffer.from('{"data": 1}'))).toBe(false);
    expect(isCompressedFormat(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]))).toBe(false); // .npy
    expect(isCompressedFormat(Buffer.alloc(0))).toBe(false);
  });
});

function decoded(answer: BytesAnswer): Buffer {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.body);
  if (coding === 'gzip') return gunzipSync(answer.body);
  return answer.body;
}

describe('over HTTP', () => {
  let served: Awaited<ReturnType<typeof listeningOn>>;
  const find = async (query: string) => {
    const r = await httpGet(served.port, `/api/v4/nodes/?${query}&limit=1`);
    return JSON.parse(r.body.toString()).data.nodes[0]?.uuid as string | undefined;
  };

  beforeAll(async () => {
    served = await listeningOn(await smallArchive(400));
  }, 60_000);
  afterAll(async () => served?.close());

  it('sends gzip and br that decode to the identical bytes, with Vary and a tag per coding', async () => {
    for (const path of [
      '/api/v4/nodes/?limit=50',
      '/api/v4/nodes/full_types/',
      '/api/v4/nodes/statistics/',
    ]) {
      const plain = await httpGet(served.port, path);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      expect(plain.body.length).toBeGreaterThan(1024);
      const tags = new Set([plain.headers.etag]);
      for (const coding of ['gzip', 'br']) {
        const answer = await httpGet(served.port, path, { 'Accept-Encoding': coding });
        expect(answer.status).toBe(200);
        expect(answer.headers['content-encoding']).toBe(coding);
        expect(answer.headers.vary).toBe('Accept-Encoding');
        expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
        expect(answer.body.length).toBeLessThan(plain.body.length / 2);
        expect(decoded(answer).equals(plain.body)).toBe(true);
        expect(answer.headers.etag).toBe(`${plain.headers.etag!.slice(0, -1)}-${coding}"`);
        tags.add(answer.headers.etag);
        // The coded tag revalidates, whatever the client accepts now.
        const again = await httpGet(served.port, path, { 'If-None-Match': answer.headers.etag! });
        expect(again.status).toBe(304);
        expect(again.headers.etag).toBe(answer.headers.etag);
      }
      expect(tags.size).toBe(3);
    }
  });

  it("answers a browser's Accept-Encoding with gzip below 16 kB and brotli above", async () => {
    const browser = { 'Accept-Encoding': 'gzip, deflate, br, zstd' };
    const page = await httpGet(served.port, '/api/v4/nodes/?limit=20', browser);
    expect(page.body.length).toBeLessThan(BROTLI_FROM);
    expect(page.headers['content-encoding']).toBe('gzip');
    const big = await httpGet(served.port, '/api/v4/nodes/?limit=200', browser);
    expect(decoded(big).length).toBeGreaterThan(BROTLI_FROM);
    expect(big.headers['content-encoding']).toBe('br');
  });

  it('sends small answers as they are, without Vary', async () => {
    const small = await httpGet(served.port, '/api/v4/server/', { 'Accept-Encoding': 'gzip, br' });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    const error = await httpGet(served.port, '/api/v4/nodes/?limit=abc', { 'Accept-Encoding': 'br' });
    expect(error.status).toBe(400);
    expect(error.headers['content-encoding']).toBeUndefined();
  });

  it('compresses downloads, but not PNG or PDF ones', async () => {
    const bands = await find('node_type="data.core.array.bands.BandsData."');
    expect(bands).toBeDefined();
    const download = (format: string, headers: Record<string, string> = {}) =>
      httpGet(served.port, `/api/v4/nodes/${bands}/download/?download_format=${format}`, headers);
    for (const format of ['mpl_png', 'mpl_pdf']) {
      const answer = await download(format, { 'Accept-Encoding': 'gzip, br' });
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeGreaterThan(1024);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBeUndefined();
    }
    const plain = await download('json');
    const compressed = await download('json', { 'Accept-Encoding': 'gzip' });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(decoded(compressed).equals(plain.body)).toBe(true);
  });
});

const simple = sharedArchive('export_main_0001_simple.aiida');

describe.skipIf(simple === undefined)('a repository file, streamed', () => {
  let served: Awaited<ReturnType<typeof listeningOn>>;
  /** The biggest file of the archive (709 kB of text), of its FolderData node. */
  let path = '';

  beforeAll(async () => {
    served = await listeningOn(simple as string);
    const folder = '/api/v4/nodes/?node_type="data.core.folder.FolderData."&limit=1';
    const uuid = JSON.parse((await httpGet(served.port, folder)).body.toString()).data.nodes[0].uuid;
    const sizes: [string, number][] = [];
    for (const name of ['aiida.out', 'data-file.xml', '_scheduler-stdout.txt']) {
      const head = await httpGet(
        served.port,
        `/api/v4/nodes/${uuid}/repo/contents/?filename="${name}"`,
        {},
        'HEAD',
      );
      sizes.push([name, Number(head.headers['content-length'])]);
    }
    const [biggest] = sizes.sort((a, b) => b[1] - a[1]);
    path = `/api/v4/nodes/${uuid}/repo/contents/?filename="${biggest![0]}"`;
  }, 60_000);
  afterAll(async () => served?.close());

  it('is sent chunked through the compressor, and decodes to the file', async () => {
    const plain = await httpGet(served.port, path);
    expect(plain.body.length).toBeGreaterThan(500_000);
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    for (const coding of ['gzip', 'br']) {
      const answer = await httpGet(served.port, path, { 'Accept-Encoding': coding });
      expect(answer.headers['content-encoding']).toBe(coding);
      // Streamed: the compressed size was not known when the headers went out.
      expect(answer.headers['content-length']).toBeUndefined();
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(answer.body.length).toBeLessThan(plain.body.length / 3);
      expect(decoded(answer).equals(plain.body)).toBe(true);
      const head = await httpGet(served.port, path, { 'Accept-Encoding': coding }, 'HEAD');
      expect(head.headers['content-encoding']).toBe(coding);
      expect(head.headers.etag).toBe(answer.headers.etag);
    }
  });

  it('leaves small files as they are', async () => {
    const folder = '/api/v4/nodes/?node_type="data.core.dict.Dict."&limit=1';
    const uuid = JSON.parse((await httpGet(served.port, folder)).body.toString()).data.nodes[0].uuid;
    const small = await httpGet(served.port, `/api/v4/nodes/${uuid}/repo/contents/?filename=".gitignore"`, {
      'Accept-Encoding': 'br',
    });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(Number(small.headers['content-length'])).toBe(small.body.length);
  });
});
