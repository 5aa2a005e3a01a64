/**
 * The source of a portal's plain `/optimade/v1/` and the index's default child: the one an operator chooses
 * (`--optimade-default`, a sources file's `optimade_default`), not always the first, while the v4 API's plain
 * prefix stays the first source's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { readSourcesFile, SourcesFileError } from '../src/sources/sources-file.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';
import { smallArchive, tempDir } from './helpers.js';

describe('the OPTIMADE default source of a portal', () => {
  let backends: StorageBackend[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;
  const get = async (url: string) => JSON.parse((await app.inject({ url })).body);

  beforeAll(async () => {
    const cacheDir = tempDir('quarry-optimade-default-');
    backends = [
      await openArchive(await smallArchive(200, 5), { cacheDir }),
      await openArchive(richFile('rich.aiida'), { cacheDir }),
    ];
    app = await buildApp({ backends, ui: false, optimadeDefault: backends[1]!.name });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all(backends.map((b) => b.close()));
  });

  it('answers the plain /optimade/v1/ from the chosen source and names it the index default', async () => {
    const [first, chosen] = backends.map((b) => b.name);
    const plain = await get('/optimade/v1/structures?page_limit=1');
    const own = await get(`/${chosen}/optimade/v1/structures?page_limit=1`);
    const firsts = await get(`/${first}/optimade/v1/structures?page_limit=1`);
    expect(plain.meta.data_available).toBe(own.meta.data_available);
    expect(plain.meta.data_available).not.toBe(firsts.meta.data_available);
    expect(plain.data[0].id).toBe(own.data[0].id);
    const index = await get('/optimade/index/v1/info');
    expect(index.data.relationships.default.data.id).toBe(chosen);
    // The v4 API's plain prefix is still the first source's.
    const v4 = await app.inject({ url: '/api/v4/nodes?limit=1' });
    const v4First = await app.inject({ url: `/${first}/api/v4/nodes?limit=1` });
    expect(v4.headers['x-total-count']).toBe(v4First.headers['x-total-count']);
  });

  it('reads optimade_default from a sources file, and refuses one that is not a name', () => {
    const dir = tempDir('quarry-sources-file-');
    const file = join(dir, 'sources.yaml');
    writeFileSync(join(dir, 'rich.aiida'), '');
    writeFileSync(file, 'optimade_default: rich\nsources:\n  - archive: rich.aiida\n');
    expect(readSourcesFile(file).optimadeDefault).toBe('rich');
    writeFileSync(file, 'optimade_default: [1]\nsources:\n  - archive: rich.aiida\n');
    expect(() => readSourcesFile(file)).toThrow(SourcesFileError);
  });
});
