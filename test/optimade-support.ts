/** What the OPTIMADE tests share: an app on an archive with a cache folder of its own, removed at close. */
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
import { rmSync } from 'node:fs';
import { buildApp, type AppOptions } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { tempDir } from './helpers.js';

export async function optimadeApp(file: string, options: Omit<AppOptions, 'backends'> = {}) {
  const cacheDir = tempDir('quarry-optimade-');
  let backend: StorageBackend | undefined;
  try {
    backend = await openArchive(file, { cacheDir });
    const app = await buildApp({ backends: [backend], ui: false, ...options });
    const get = async (url: string) => {
      const r = await app.inject({ url });
      return { status: r.statusCode, headers: r.headers, body: r.body, json: () => JSON.parse(r.body) };
    };
    return {
      app,
      backend,
      cacheDir,
      get,
      close: async () => {
        await app.close();
        await backend!.close();
        rmSync(cacheDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await backend?.close();
    rmSync(cacheDir, { recursive: true, force: true });
    throw error;
  }
}

/** Every entry the listing gives for `query`, following `links.next` to the end. */
export async function allEntries(
  get: (url: string) => Promise<{ status: number; json: () => any }>,
  query: string,
): Promise<any[]> {
  const out: any[] = [];
  let url: string | null = `/optimade/v1/structures?${query}`;
  while (url !== null) {
    const r = await get(url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(r.json()).slice(0, 500)}`);
    const body = r.json();
    out.push(...body.data);
    url =
      body.links.next === null ? null : new URL(body.links.next).pathname + new URL(body.links.next).search;
  }
  return out;
}
