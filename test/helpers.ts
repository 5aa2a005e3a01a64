/** Shared fixtures: a small generated archive, opened once per test file. */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateArchive } from '../src/generate/index.js';
import { buildApp, type AppOptions } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import { tempDir } from './support/temp.js';

export { tempDir };

export async function smallArchive(nodes = 400, seed = 7): Promise<string> {
  const out = join(tempDir(), `small-${nodes}-${seed}.aiida`);
  await generateArchive({ nodes, out, seed });
  return out;
}

export async function appOn(file: string, options: Omit<AppOptions, 'backends'> = {}) {
  const backend = await openArchive(file, { cacheDir: tempDir('quarry-cache-') });
  const app = await buildApp({ backends: [backend], ...options });
  return {
    app,
    backend,
    close: async () => {
      await app.close();
      await backend.close();
    },
  };
}

/** The app of `appOn`, listening on a free loopback port: for tests that speak raw HTTP to it. */
export async function listeningOn(file: string, options: Omit<AppOptions, 'backends'> = {}) {
  const served = await appOn(file, options);
  await served.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...served, port: (served.app.server.address() as AddressInfo).port };
}
