/**
 * `/export/` refusing what it cannot do, each with a 4xx that says what to fix (never a 500); its bounds on
 * nodes and bytes (413 naming the option); its lane (503 with Retry-After when full); a source's whole
 * archive (`all.aiida`: the file itself, with ETag and ranges); and an export cut short by its client leaving
 * nothing behind in the cache.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from './conformance/corpus.js';
import { appOn, listeningOn } from './helpers.js';
import { ExportLane } from '../src/export/lane.js';

const RICH = richFile('rich.aiida');
const CALCJOB = '872e983d-1456-47d7-b7f2-4f3f3a976653';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('/export/ refusals and bounds', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(RICH);
  });
  afterAll(async () => served?.close());
  const refusal = async (url: string) => {
    const r = await served.app.inject(url);
    return { status: r.statusCode, message: String((r.json() as { message?: string }).message) };
  };

  it('names the UUIDs it does not hold in a 404', async () => {
    const r = await refusal(`/export/?nodes=${CALCJOB},${UNKNOWN}&groups=${UNKNOWN}`);
    expect(r.status).toBe(404);
    expect(r.message).toContain(`node ${UNKNOWN}`);
    expect(r.message).toContain(`group ${UNKNOWN}`);
    expect(r.message).not.toContain(CALCJOB);
  });

  it.each([
    ['nothing asked', '/export/', 400, 'nothing to export'],
    ['a value that is no UUID', '/export/?nodes=42', 400, 'is not a UUID'],
    [
      'a rule that is neither true nor false',
      `/export/?nodes=${CALCJOB}&create_backward=maybe`,
      400,
      'true or false',
    ],
    ['a fixed rule changed', `/export/?nodes=${CALCJOB}&input_calc_backward=false`, 400, 'cannot be changed'],
    ['an unknown parameter', `/export/?nodes=${CALCJOB}&follow_everything=true`, 400, 'unknown parameter'],
    ['a bad dry_run', `/export/?nodes=${CALCJOB}&dry_run=yes`, 400, 'dry_run must be'],
    ['a bad escape', `/export/?nodes=%E0%A4%A`, 400, 'UUID'],
  ])('%s: %s', async (_what, url, status, words) => {
    const r = await refusal(url);
    expect(r).toMatchObject({ status });
    expect(r.message).toContain(words);
  });

  it('refuses more than 1,000 UUIDs with a 400 and a query string past its bound with a 414', async () => {
    const many = Array.from(
      { length: 1001 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const r = await refusal(`/export/?nodes=${many.join(',')}`);
    expect(r.status).toBe(400);
    expect(r.message).toContain('more than 1000 UUIDs');
    expect((await refusal(`/export/?nodes=${CALCJOB}&x=${'a'.repeat(70_000)}`)).status).toBe(414);
  });

  it('answers a dry run with what the export would hold', async () => {
    const r = await served.app.inject(`/export/?nodes=${CALCJOB}&dry_run=1`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      export_version: 'main_0001',
      nodes: { total: 13 },
      links: 14,
      groups: 0,
      users: expect.any(Number),
      files: expect.any(Number),
      file_bytes: expect.any(Number),
    });
    const body = r.json() as { nodes: { by_type: Record<string, number> } };
    expect(body.nodes.by_type['process.calculation.calcjob.CalcJobNode.']).toBe(1);
    expect(body.nodes.by_type['process.workflow.workchain.WorkChainNode.']).toBe(1);
  });

  it('takes ?profile= as the API does, and answers HEAD without writing the export', async () => {
    const named = await served.app.inject(
      `/export/?nodes=${CALCJOB}&profile="${served.backend.name}"&dry_run=1`,
    );
    expect(named.statusCode).toBe(200);
    const unknown = await refusal(`/export/?nodes=${CALCJOB}&profile="nowhere"&dry_run=1`);
    expect(unknown.status).toBe(400);
    expect(unknown.message).toContain('unknown profile "nowhere"');
    const head = await served.app.inject({ method: 'HEAD', url: `/export/?nodes=${CALCJOB}` });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('application/zip');
    expect(head.rawPayload.length).toBe(0);
    expect((await served.app.inject({ method: 'HEAD', url: `/export/?nodes=${UNKNOWN}` })).statusCode).toBe(
      404,
    );
  });

  it('serves at a source path of a portal, and only that source', async () => {
    const r = await served.app.inject(`/${served.backend.name}/export/?nodes=${CALCJOB}&dry_run=1`);
    expect(r.statusCode).toBe(200);
    expect((r.json() as { nodes: { total: number } }).nodes.total).toBe(13);
    // The v4 listing of endpoints stays the reference's.
    const root = await served.app.inject('/api/v4/');
    expect(root.body).not.toContain('export');
  });
});

describe('/export/ bounds on nodes, bytes and exports at once', () => {
  it('answers 413 naming --max-export-nodes and --max-export-bytes', async () => {
    const small = await appOn(RICH, { exports: { maxNodes: 12, maxBytes: 20_000 } });
    try {
      const nodes = await small.app.inject(`/export/?nodes=${CALCJOB}`);
      expect(nodes.statusCode).toBe(413);
      expect(nodes.json().message).toContain('--max-export-nodes');
      const bytes = await small.app.inject(`/export/?nodes=${CALCJOB}&call_calc_backward=false`);
      expect(bytes.statusCode).toBe(413);
      expect(bytes.json().message).toContain('--max-export-bytes');
      const whole = await small.app.inject('/export/all.aiida');
      // A main_0001 archive is its own file: no export is written, so no bound applies.
      expect(whole.statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('refuses exports past its lane with 503 and Retry-After, and serves the API meanwhile', async () => {
    const one = await appOn(RICH, { exports: { running: 1, waiting: 0 } });
    try {
      const [first, second, api] = await Promise.all([
        one.app.inject(`/export/?nodes=${CALCJOB}`),
        one.app.inject(`/export/?nodes=${CALCJOB}`),
        one.app.inject(`/api/v4/nodes/${CALCJOB}/`),
      ]);
      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(503);
      expect(second.headers['retry-after']).toBe('60');
      expect(api.statusCode).toBe(200);
      // Its turn given back, the lane takes the next one.
      expect((await one.app.inject(`/export/?nodes=${CALCJOB}&dry_run=1`)).statusCode).toBe(200);
    } finally {
      await one.close();
    }
  });

  it('takes turns in its lane', async () => {
    const lane = new ExportLane(1, 1);
    const first = await lane.enter();
    const waiting = lane.enter();
    await expect(lane.enter()).rejects.toMatchObject({ status: 503, retryAfter: 60 });
    first();
    first();
    const second = await waiting;
    expect(lane.state).toEqual({ running: 1, waiting: 0 });
    second();
    expect(lane.state).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a wait past its bound with 503 and Retry-After, and gives up the place of a client gone', async () => {
    const lane = new ExportLane(1, 2, 100);
    const first = await lane.enter();
    const late = lane.enter();
    const client = new AbortController();
    const leaving = lane.enter(client.signal);
    expect(lane.state).toEqual({ running: 1, waiting: 2 });
    client.abort();
    await expect(leaving).rejects.toThrow('the client left');
    expect(lane.state).toEqual({ running: 1, waiting: 1 });
    await expect(late).rejects.toMatchObject({ status: 503, retryAfter: 60 });
    expect(lane.state).toEqual({ running: 1, waiting: 0 });
    first();
    expect(lane.state).toEqual({ running: 0, waiting: 0 });
  });
});

describe('/export/all.aiida of a main_0001 archive', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(RICH);
  });
  afterAll(async () => served?.close());

  it('is the file itself, with a strong ETag, 304 and byte ranges', async () => {
    const bytes = readFileSync(RICH);
    const whole = await served.app.inject('/export/all.aiida');
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    const etag = String(whole.headers.etag);
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const again = await served.app.inject({ url: '/export/all.aiida', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    const part = await served.app.inject({ url: '/export/all.aiida', headers: { range: 'bytes=100-199' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${bytes.length}`);
    expect(part.rawPayload.equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await served.app.inject({ url: '/export/all.aiida', headers: { range: 'bytes=-10' } });
    expect(tail.rawPayload.equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const outside = await served.app.inject({
      url: '/export/all.aiida',
      headers: { range: `bytes=${bytes.length}-` },
    });
    expect(outside.statusCode).toBe(416);
  });
});

describe('an export cut short by its client', () => {
  let served: Awaited<ReturnType<typeof listeningOn>>;
  beforeAll(async () => {
    served = await listeningOn(RICH);
  });
  afterAll(async () => served?.close());

  /** GETs `path`, and closes the connection after the first bytes of the body. */
  const cutShort = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const request = get({ host: '127.0.0.1', port: served.port, path }, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve(response.statusCode ?? 0);
        });
      });
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    });

  it('leaves nothing in the cache, and the next export is whole', async () => {
    const dir = join(served.backend.cacheDir!, 'exports');
    // The group "workflows": 762 nodes with their provenance, 5 MB of files, far more than the socket's buffers.
    expect(await cutShort('/export/?groups=f76c3b50-e204-4b57-baca-2c191caf925d')).toBe(200);
    for (let i = 0; i < 50 && existsSync(dir) && readdirSync(dir).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const r = await served.app.inject(`/export/?nodes=${CALCJOB}`);
    expect(r.statusCode).toBe(200);
    expect(r.rawPayload.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
  });
});
