/**
 * aiida-core's legacy test archives (export versions 0.1-0.13, zip and tar.gz) served as they are answer
 * every request as the copies aiida-core's `verdi archive migrate` made of them do (../shared/legacy).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import {
  legacyArchives,
  legacyDir,
  legacyPresent,
  legacySkipLine,
  migratedCopy,
} from './support/legacy-corpus.js';
import { tempDir } from './support/temp.js';
import { ask, walkUrls } from './support/walk-api.js';

if (!legacyPresent()) console.log(legacySkipLine());

const cacheDir = tempDir('quarry-legacy-cache-');
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened) await o.close();
});

async function served(file: string, warnings: string[] = []) {
  const backend = await openArchive(file, { cacheDir, onWarning: (line) => warnings.push(line) });
  const app = await buildApp({ backends: [backend] });
  const closer = {
    close: async () => {
      await app.close();
      await backend.close();
    },
  };
  opened.push(closer);
  return { app, backend };
}

/**
 * Times aiida-core wrote at its migration (for null ones), and the days of them that the statistics count: not
 * something the legacy file holds (Quarry writes its conversion's time there, so the days differ once the two
 * were made on different days).
 */
function maskTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskTimes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      ['ctime', 'mtime', 'time', 'ctime_by_day'].includes(k) ? 'masked' : maskTimes(v),
    ]),
  );
}

/** The requests whose answers differ, each with both answers (the first few). */
async function differences(legacy: string, migrated: string, normalize = (v: unknown) => v) {
  const a = await served(legacy);
  const b = await served(migrated);
  const urls = await walkUrls(b.app);
  const seen = await walkUrls(a.app);
  const differ: string[] = [];
  let ok = 0;
  if (!isDeepStrictEqual(seen, urls)) differ.push('the walks differ');
  for (const { url, payload } of urls) {
    const x = await ask(a.app, url, payload);
    const y = await ask(b.app, url, payload);
    if (y.status === 200) ok++;
    if (!isDeepStrictEqual(normalize(x), normalize(y))) {
      differ.push(
        `${url} ${JSON.stringify(payload ?? '')}\n  legacy:   ${JSON.stringify(x).slice(0, 600)}\n  migrated: ${JSON.stringify(y).slice(0, 600)}`,
      );
    }
  }
  return { differ, requests: urls.length, ok };
}

describe.skipIf(!legacyPresent())('legacy archives', () => {
  it('serves every archive of the corpus, saying in one line what a dangling link left out', async () => {
    const counts: Record<string, number> = {};
    for (const name of legacyArchives()) {
      const warnings: string[] = [];
      const { backend } = await served(join(legacyDir(), name), warnings);
      const rows = await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] });
      counts[name] = (rows[0] as { n: number }).n;
      if (name === '0.10_dangling_link.aiida') {
        expect(warnings).toEqual([
          expect.stringMatching(
            /0\.10_dangling_link\.aiida: 1 link\(s\) left out: they join nodes the archive does not hold \(26522c2f-13e0-4b80-af13-cbc8c09df211 -> a36001a4-/,
          ),
        ]);
      }
    }
    for (const [name, n] of Object.entries(counts)) {
      expect(n, name).toBe(/no_Nodes/.test(name) ? 0 : /^0\.10_/.test(name) ? 1 : 10);
    }
  }, 120_000);

  const pairs = legacyArchives().filter((name) => migratedCopy(name) !== undefined);
  for (const name of pairs) {
    it(`${name} answers every request as its copy migrated by aiida-core`, async () => {
      const normalize = name.includes('null_fields') ? maskTimes : undefined;
      const { differ, requests, ok } = await differences(
        join(legacyDir(), name),
        migratedCopy(name)!,
        normalize,
      );
      // Most requests are answered with data, so that equal answers are not only equal refusals.
      expect(ok).toBeGreaterThan(requests * 0.8);
      expect(differ.slice(0, 5).join('\n')).toBe('');
    }, 60_000);
  }

  // aiida-core 2.x cannot migrate 0.1-0.3; its 0.4 archive is the same data taken through aiida-core 1.x's
  // migrations (its metadata says so), so 0.1-0.3 served as they are answer as that copy does.
  for (const name of legacyArchives().filter((n) => /^export_0\.[123]_/.test(n))) {
    it(`${name} answers every request as the migrated copy of the same data at 0.4`, async () => {
      const copy = migratedCopy('export_0.4_simple.aiida')!;
      const { differ, requests, ok } = await differences(join(legacyDir(), name), copy);
      expect(ok).toBeGreaterThan(requests * 0.8);
      expect(differ.slice(0, 5).join('\n')).toBe('');
    }, 60_000);
  }
});
