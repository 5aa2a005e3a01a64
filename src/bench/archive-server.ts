/**
 * The benchmarks' own Quarry over one archive: a cache folder of the run's own (its extracted database and side
 * tables, so that a run measures them cold and leaves nothing behind) and the backend served on a free loopback
 * port, without the explorer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { defaultCacheDir } from '../storage/index.js';
import type { StorageBackend } from '../storage/types.js';

/** `work` with a new folder in the cache (`bench-TAG-run-*`), removed afterwards whatever happens. */
export async function inRunFolder(tag: string, work: (cacheDir: string) => Promise<void>): Promise<void> {
  const cacheDir = mkdtempSync(join(defaultCacheDir(), `bench-${tag}-run-`));
  try {
    await work(cacheDir);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** `work` with the base URL of a server of `backend`; the server and the backend are closed afterwards. */
export async function servedFor(
  backend: StorageBackend,
  work: (base: string) => Promise<void>,
): Promise<void> {
  const app = await buildApp({ backends: [backend], ui: false, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    await work(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  } finally {
    await app.close();
    await backend.close();
  }
}
