/**
 * A portal of archives at URLs beside a local archive, in-process, for the tests of remote archives; and the
 * steps those tests take on the server's folder.
 */
import { copyFileSync, renameSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { SourceCatalog } from '../../src/sources/catalog.js';
import { sourceOpener } from '../../src/sources/open.js';
import type { PortalSpec } from '../../src/sources/spec.js';
import { smallArchive, tempDir } from '../helpers.js';

export interface Portal {
  app: FastifyInstance;
  catalog: SourceCatalog<PortalSpec>;
  close: () => Promise<void>;
}

/** A portal of `specs` plus a local archive named `local`, in-process, each with its own cache folder. */
export async function portal(
  specs: PortalSpec[],
  revalidateMs: number,
  cacheDir = tempDir('quarry-remote-cache-'),
) {
  const local = await smallArchive(60, 5);
  const catalog = new SourceCatalog<PortalSpec>(sourceOpener({ cacheDir, revalidateMs }));
  catalog.add([...specs, { name: 'local', kind: 'archive', origin: local, path: local, version: 'local' }]);
  const app = await buildApp({ catalog, metrics: true });
  return {
    app,
    catalog,
    close: async () => {
      await app.close();
      await catalog.close();
    },
  } satisfies Portal;
}

/** The archive `name` in the served folder replaced by `from`, as an upload does (a new file renamed in place). */
export function replace(folder: string, name: string, from: string, secondsAhead: number) {
  const temp = join(folder, `.${name}.part`);
  copyFileSync(from, temp);
  // Another mtime than the file it replaces, whatever the clock's resolution: nginx's ETag is mtime and size.
  const when = new Date(Date.now() + secondsAhead * 1000);
  utimesSync(temp, when, when);
  renameSync(temp, join(folder, name));
}

export async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}
