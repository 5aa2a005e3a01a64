/**
 * Archives at URLs whose server goes wrong in the middle of a long answer (test/support/faulty-server.ts): the
 * data.json of an AiiDA 1.x zip read by range, or the whole of a tar.gz downloaded. A server that stalls or
 * drips is given up within the deadline between bytes and answered 503 with Retry-After, one that cuts the
 * connection too (a failure to retry, not a damaged archive); the local source beside them answers 200, nothing
 * is left in the cache, and a server stopping ends such reads instead of waiting on them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDown } from '../src/cli/shutdown.js';
import { remoteDeadlines } from '../src/storage/archive/http-reader.js';
import { remoteSpec } from '../src/sources/remote.js';
import { faultyServer, type Fault, type FaultyServer } from './support/faulty-server.js';
import { tinyEntries, tinyExport, writeLegacyTarGz, writeLegacyZip } from './support/legacy-files.js';
import { portal } from './support/remote-portal.js';
import { tempDir } from './support/temp.js';

/** tinyExport() with an attribute of 3 MB that does not compress much: its data.json is read by a long range. */
function bulkyEntries() {
  const data = tinyExport().data;
  (data.node_attributes as Record<string, unknown>)['3'] = {
    blob: randomBytes(2_250_000).toString('base64'),
  };
  return tinyEntries(data);
}

const left = (cacheDir: string) => {
  const dir = join(cacheDir, 'archives');
  return existsSync(dir) ? readdirSync(dir).filter((n) => /\.tmp|\.stage|\.download|\.files$/.test(n)) : [];
};

describe('archives at URLs whose server stalls, drips or cuts a long answer', { timeout: 60_000 }, () => {
  let folder: string;
  let server: FaultyServer;
  let fault: Fault = 'none';
  const saved = { ...remoteDeadlines };

  beforeAll(async () => {
    folder = tempDir('quarry-faulty-files-');
    await writeLegacyZip(join(folder, 'bulky.aiida'), bulkyEntries());
    await writeLegacyTarGz(join(folder, 'bulky.tar.gz'), bulkyEntries());
    // Longer answers than the 1 MiB of a first look at the file: data.json's range, the tar.gz's download.
    server = await faultyServer(folder, () => fault, 3 << 19);
    Object.assign(remoteDeadlines, { idleMs: 1_000, answerMs: 2_000 });
  });
  afterAll(async () => {
    Object.assign(remoteDeadlines, saved);
    await server?.close();
  });

  for (const [name, what] of [
    ['bulky.aiida', "a zip's data.json"],
    ['bulky.tar.gz', 'a tar.gz downloaded'],
  ] as const) {
    for (const [how, said] of [
      ['stall', /its server stopped sending it midway \(less than 65536 bytes in 1 s\); try again/],
      ['drip', /its server stopped sending it midway \(less than 65536 bytes in 1 s\); try again/],
      [
        'cut',
        /the connection broke while it was read; try again|its server ended the answer after \d+ of \d+ bytes; try again/,
      ],
    ] as const) {
      it(`answers 503 with Retry-After when the server ${how}s ${what}, and serves it once the server is well`, async () => {
        fault = how;
        const cacheDir = tempDir('quarry-remote-cache-');
        const served = await portal([remoteSpec(server.url(name))], 60_000, cacheDir);
        try {
          const before = server.faulted;
          const started = Date.now();
          const local = served.app.inject({ url: '/local/api/v4/nodes/?limit=1' });
          const answer = await served.app.inject({ url: '/bulky/api/v4/nodes/' });
          const ms = Date.now() - started;
          expect(server.faulted).toBeGreaterThan(before);
          expect(answer.statusCode).toBe(503);
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
          const message = answer.json().message as string;
          expect(message).toMatch(said);
          expect(message).toMatch(
            /^the source "bulky" cannot be opened now: http:\/\/127\.0\.0\.1:\d+\/bulky/,
          );
          expect(message).not.toContain('\n');
          expect(message.length).toBeLessThan(500);
          expect(ms).toBeLessThan(15_000);
          expect((await local).statusCode).toBe(200);
          expect(left(cacheDir)).toEqual([]);
          console.log(`${name} ${how}: 503 after ${ms} ms: ${message}`);
          fault = 'none';
          const again = await served.app.inject({ url: '/bulky/api/v4/nodes/' });
          expect(again.statusCode).toBe(200);
          expect(again.json().data.nodes).toHaveLength(3);
        } finally {
          fault = 'none';
          await served.close();
        }
      });
    }
  }

  it('stops a server at once while an opening waits on a stalled answer, leaving nothing in the cache', async () => {
    Object.assign(remoteDeadlines, { idleMs: 60_000, answerMs: 60_000 });
    fault = 'stall';
    const cacheDir = tempDir('quarry-remote-cache-');
    const served = await portal([remoteSpec(server.url('bulky.tar.gz'))], 60_000, cacheDir);
    try {
      const before = server.faulted;
      const pending = served.app.inject({ url: '/bulky/api/v4/nodes/' });
      const until = Date.now() + 20_000;
      while (server.faulted === before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(server.faulted).toBeGreaterThan(before);
      const started = Date.now();
      await shutDown(served.app, [served.catalog], 1_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      const answer = await pending;
      expect(answer.statusCode).toBe(503);
      expect(answer.json().message).toMatch(/was being read when the server stopped; try again/);
      expect(left(cacheDir)).toEqual([]);
    } finally {
      fault = 'none';
      Object.assign(remoteDeadlines, { idleMs: 1_000, answerMs: 2_000 });
      await served.close().catch(() => undefined);
    }
  });
});
