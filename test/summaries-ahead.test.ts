/**
 * Node-wide summaries of a live database: computed ahead at start-up (readiness waits for them), kept per data
 * version, and after a change computed again in the background while requests get the newest value computed,
 * without an ETag (it would name data the answer does not hold).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { warmUp } from '../src/ops/warm-up.js';
import { STALE_AFTER_MS, summary } from '../src/rest/summary-cache.js';
import { openArchive } from '../src/storage/index.js';
import type { Database, StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A storage whose data version the test sets. */
function versioned(version: { now: string }): StorageBackend {
  return { dataVersion: async () => version.now } as unknown as StorageBackend;
}

/** A computation that counts its runs and answers, after `ms`, the version it began at. */
function computation(version: { now: string }, ms: () => number) {
  const runs: string[] = [];
  const compute = async () => {
    const at = version.now;
    runs.push(at);
    await sleep(ms());
    return `value at ${at}`;
  };
  return { runs, compute };
}

describe('summaries kept per data version', () => {
  it('waits for the first value, and keeps it until the data changes', async () => {
    const version = { now: 'v1' };
    const backend = versioned(version);
    const { runs, compute } = computation(version, () => 400);
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: true });
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: true });
    expect(runs).toEqual(['v1']);
  });

  it('answers a change with a fresh value when it comes quickly', async () => {
    const version = { now: 'v1' };
    const backend = versioned(version);
    const { runs, compute } = computation(version, () => 5);
    await summary(backend, 's', compute);
    // A computation shorter than a request waits for is not spaced: the next change gets its own at once.
    version.now = 'v2';
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v2', current: true });
    expect(runs).toEqual(['v1', 'v2']);
  });

  it('answers a change with the newest value while a slow computation runs, one at a time', async () => {
    const version = { now: 'v1' };
    const backend = versioned(version);
    let ms = 5;
    const { runs, compute } = computation(version, () => ms);
    await summary(backend, 's', compute);
    await sleep(30);
    ms = STALE_AFTER_MS * 3;
    version.now = 'v2';
    const started = Date.now();
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: false });
    expect(Date.now() - started).toBeLessThan(STALE_AFTER_MS * 2);
    // Another change while v2's runs: nothing more is started.
    version.now = 'v3';
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: false });
    expect(runs).toEqual(['v1', 'v2']);
    await sleep(ms);
    // v2's value is the newest now, still not v3's; the next computation waits four times v2's length.
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v2', current: false });
    expect(runs).toEqual(['v1', 'v2']);
    version.now = 'v2';
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v2', current: true });
  });

  it('keeps serving the newest value when a computation fails, and tries again later', async () => {
    const version = { now: 'v1' };
    const backend = versioned(version);
    let fail = false;
    let runs = 0;
    const compute = async () => {
      runs++;
      await sleep(2);
      if (fail) throw new Error('the database is not reachable');
      return `value at ${version.now}`;
    };
    await summary(backend, 's', compute);
    await sleep(20);
    fail = true;
    version.now = 'v2';
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: false });
    fail = false;
    await sleep(20);
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v2', current: true });
    expect(runs).toBe(3);
  });

  it('gives the first requests the value being computed at start-up, even of an older version', async () => {
    const version = { now: 'v1' };
    const backend = versioned(version);
    const { runs, compute } = computation(version, () => 200);
    const warm = summary(backend, 's', compute);
    await sleep(10);
    version.now = 'v2';
    expect(await summary(backend, 's', compute)).toEqual({ value: 'value at v1', current: false });
    expect(await warm).toEqual({ value: 'value at v1', current: true });
    expect(runs).toEqual(['v1']);
  });
});

/** An archive served as if it were a live database: its version set by the test, its statements slowed. */
function liveArchive(
  archive: StorageBackend,
  control: { version: string; delayMs: number; statements: number },
) {
  const inner = archive.db;
  const slowly = async <T>(run: () => Promise<T>) => {
    control.statements++;
    await sleep(control.delayMs);
    return run();
  };
  const db: Database = {
    dialect: inner.dialect,
    all: (statement, budget) => slowly(() => inner.all(statement, budget)),
    values: (statement, budget) => slowly(() => inner.values(statement, budget)),
    dataVersion: async () => control.version,
    close: async () => undefined,
  };
  return {
    name: 'live',
    kind: 'sqlite-profile',
    aiidaVersion: archive.aiidaVersion,
    db,
    repository: archive.repository,
    dataVersion(this: StorageBackend) {
      return this.db.dataVersion!();
    },
    close: async () => undefined,
  } as StorageBackend;
}

describe('summaries of a live database over HTTP', () => {
  let archive: StorageBackend;
  let app: FastifyInstance;
  const control = { version: 'v1', delayMs: 0, statements: 0 };
  let live: StorageBackend;

  beforeAll(async () => {
    archive = await openArchive(await smallArchive(300, 5), { cacheDir: tempDir() });
    live = liveArchive(archive, control);
    app = await buildApp({ backends: [live] });
  });
  afterAll(async () => {
    await app?.close();
    await archive?.close();
  });

  it('is not ready until the summaries computed at start-up are kept, then answers them without a query', async () => {
    control.delayMs = 600;
    const warming = warmUp([live], 10_000, (_b, error) => {
      throw error;
    });
    const early = await app.inject('/readyz');
    expect(early.statusCode).toBe(503);
    expect(early.json().message).toMatch(
      /source live is not ready: its node statistics and type counts are being computed/,
    );
    await (
      await warming
    ).done;
    expect((await app.inject('/readyz')).statusCode).toBe(200);
    const before = control.statements;
    for (const path of ['statistics', 'full_types', 'full_types_count']) {
      const r = await app.inject(`/api/v4/nodes/${path}/`);
      expect(r.statusCode).toBe(200);
      expect(r.headers.etag).toBeDefined();
    }
    expect(control.statements).toBe(before);
  });

  it('answers a changed database at once from the newest summary, without an ETag, then the new one with its tag', async () => {
    // A storage of its own, whose summaries were computed quickly (the next may come 4x that later).
    const own = { version: 'v1', delayMs: 0, statements: 0 };
    const ownApp = await buildApp({ backends: [liveArchive(archive, own)] });
    const settled = await ownApp.inject('/api/v4/nodes/statistics/');
    expect(settled.headers.etag).toBeDefined();
    own.delayMs = STALE_AFTER_MS * 4;
    own.version = 'v2';
    await sleep(50);
    const started = Date.now();
    const stale = await ownApp.inject('/api/v4/nodes/statistics/');
    expect(Date.now() - started).toBeLessThan(STALE_AFTER_MS * 3);
    expect(stale.statusCode).toBe(200);
    expect(stale.headers.etag).toBeUndefined();
    expect(stale.headers['cache-control']).toBe('no-cache');
    expect(stale.json().data).toEqual(settled.json().data);
    // Once the new version's summary is kept, it is current again and tagged with the new version.
    await sleep(own.delayMs * 3);
    const fresh = await ownApp.inject('/api/v4/nodes/statistics/');
    expect(fresh.headers.etag).toBeDefined();
    expect(fresh.headers.etag).not.toBe(settled.headers.etag);
    await ownApp.close();
  });
});
