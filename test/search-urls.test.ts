/**
 * The URLs a search result gives on a single-source server: the node at the plain prefix (the configured one),
 * its explorer page at the root, both under --public-url's origin and path where one is set; and a search asked
 * under a source's path gives the same URLs as at the root.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { smallArchive, tempDir } from './helpers.js';

let backend: StorageBackend;

beforeAll(async () => {
  backend = await openArchive(await smallArchive(200, 21), { cacheDir: tempDir('quarry-cache-') });
}, 60_000);

afterAll(async () => {
  await backend?.close();
});

/** The first structure found, once the source is indexed (the first search learns it). */
async function firstStructure(app: Awaited<ReturnType<typeof buildApp>>, path = '/search/') {
  for (let i = 0; i < 200; i++) {
    const answer = (await app.inject({ url: `${path}?type=structure&per_page=1` })).json();
    if (answer.total > 0) return answer.results[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the source was not indexed');
}

describe('search result URLs on a single-source server', () => {
  it('name the node at the plain prefix and its explorer page at the root', async () => {
    const app = await buildApp({ backends: [backend] });
    try {
      const hit = await firstStructure(app);
      expect(hit.url).toBe(`http://localhost:80/api/v4/nodes/${hit.uuid}/`);
      expect(hit.explorer_url).toBe(`http://localhost:80/nodes/${hit.uuid}`);
      const node = await app.inject({ url: new URL(hit.url).pathname });
      expect(node.json().data.nodes[0].uuid).toBe(hit.uuid);
      // Asked under the source's path: the same URLs.
      const mounted = await firstStructure(app, `/${backend.name}/search/`);
      expect(mounted.url).toBe(hit.url);
    } finally {
      await app.close();
    }
  });

  it('follow --public-url and --prefix', async () => {
    const app = await buildApp({
      backends: [backend],
      publicUrl: 'https://data.example.org/quarry',
      prefix: '/aiida/v4',
    });
    try {
      const hit = await firstStructure(app);
      expect(hit.url).toBe(`https://data.example.org/quarry/aiida/v4/nodes/${hit.uuid}/`);
      expect(hit.explorer_url).toBe(`https://data.example.org/quarry/nodes/${hit.uuid}`);
    } finally {
      await app.close();
    }
  });
});
