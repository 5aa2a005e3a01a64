/**
 * `?profile=NAME` with the names sources have (a file name without `.aiida`: dots, digits, underscores), unquoted
 * as a user types it, and an unknown name refused on every path of the API.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { smallArchive, tempDir } from './helpers.js';

describe('?profile= with dotted source names', () => {
  let app: FastifyInstance;
  let backends: StorageBackend[];

  beforeAll(async () => {
    const folder = tempDir();
    const first = join(folder, 'export_0.13_simple.aiida');
    const second = join(folder, 'arithmetic.add.aiida');
    copyFileSync(await smallArchive(120, 3), first);
    copyFileSync(await smallArchive(80, 4), second);
    const cacheDir = tempDir();
    backends = [await openArchive(first, { cacheDir }), await openArchive(second, { cacheDir })];
    app = await buildApp({ backends });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all((backends ?? []).map((b) => b.close()));
  });

  const get = (url: string) => app.inject({ method: 'GET', url });

  it('answers from the source named unquoted, as quoted', async () => {
    expect(backends.map((b) => b.name)).toEqual(['export_0.13_simple', 'arithmetic.add']);
    const plain = await get('/api/v4/nodes/?limit=1');
    const named = await get('/api/v4/nodes/?limit=1&profile=arithmetic.add');
    const quoted = await get('/api/v4/nodes/?limit=1&profile="arithmetic.add"');
    expect(named.statusCode).toBe(200);
    expect(named.headers['x-total-count']).toBe('80');
    expect(plain.headers['x-total-count']).toBe('120');
    expect(quoted.headers['x-total-count']).toBe('80');
    const first = await get('/api/v4/nodes/statistics/?profile=export_0.13_simple');
    expect(first.statusCode).toBe(200);
    expect(first.json().data.total).toBe(120);
  });

  it('refuses an unknown name with 400 on every path, those that read no source too', async () => {
    for (const path of ['/api/v4/', '/api/v4/server/', '/api/v4/server/endpoints/', '/api/v4/nodes/']) {
      const answer = await get(`${path}?profile=arithmetic.sub`);
      expect(answer.statusCode, path).toBe(400);
      expect(answer.json().message, path).toBe(
        'unknown profile "arithmetic.sub"; this server serves: export_0.13_simple, arithmetic.add',
      );
    }
  });
});
