/**
 * The first examples a new user runs from the docs answer with data on the data they have at hand: the demo
 * archive (`npm start`) and the repository's conformance data `rich`. Read from the pages themselves, so that an
 * example changed there is checked as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoArchive } from '../src/generate/index.js';
import { richFile } from './conformance/corpus.js';
import { optimadeApp } from './optimade-support.js';
import { tempDir } from './support/temp.js';

/** The filter of the first `structures` example of docs/optimade.md. */
function firstOptimadeFilter(): string {
  const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'optimade.md'), 'utf8');
  const filter = /--data-urlencode 'filter=([^']+)'/.exec(page)?.[1];
  if (filter === undefined) throw new Error('docs/optimade.md has no filter example');
  return filter;
}

describe('the first OPTIMADE example of docs/optimade.md', () => {
  const served: Awaited<ReturnType<typeof optimadeApp>>[] = [];
  beforeAll(async () => {
    served.push(await optimadeApp(await ensureDemoArchive(tempDir())));
    served.push(await optimadeApp(richFile('rich.aiida')));
  }, 120_000);
  afterAll(async () => {
    for (const s of served) await s.close();
  });

  for (const [i, data] of ['the demo archive', 'rich'].entries()) {
    it(`returns structures on ${data}`, async () => {
      const filter = firstOptimadeFilter();
      const answer = await served[i]!.get(`/optimade/v1/structures?filter=${encodeURIComponent(filter)}`);
      expect(answer.status).toBe(200);
      const body = answer.json() as { meta: { data_returned: number }; data: unknown[] };
      expect(body.meta.data_returned, filter).toBeGreaterThan(0);
      expect(body.data.length).toBeGreaterThan(0);
    });
  }
});
