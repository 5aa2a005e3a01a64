/**
 * Legacy archives in the shapes real ones were found in (plugin test fixtures, tutorials), generated here: each
 * is served as aiida-core's migration leaves it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateArchive } from '../src/generate/index.js';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { legacyArchive } from './support/legacy-archives.js';
import { tempDir } from './support/temp.js';
import { join } from 'node:path';

const opened: StorageBackend[] = [];
afterAll(async () => {
  for (const b of opened) await b.close();
});

async function open(file: string, warnings: string[] = []) {
  const backend = await openArchive(file, {
    cacheDir: tempDir('quarry-cache-'),
    onWarning: (l) => warnings.push(l),
  });
  opened.push(backend);
  return backend;
}

const API = '/api/v4';

describe('TrajectoryData of export versions 0.1 to 0.3', () => {
  it('get their symbols from symbols.npy as an attribute, as aiida-core 1.x moved them, and export with atoms', async () => {
    const main = join(tempDir(), 'main.aiida');
    await generateArchive({ nodes: 300, out: main, seed: 3 });
    const today = await open(main);
    const trajectories = (await today.db.all({
      sql: "SELECT uuid, attributes FROM db_dbnode WHERE node_type = 'data.core.array.trajectory.TrajectoryData.'",
      params: [],
    })) as { uuid: string; attributes: string }[];
    expect(trajectories.length).toBeGreaterThan(0);
    for (const version of ['0.1', '0.3'] as const) {
      const warnings: string[] = [];
      const app = await buildApp({
        backends: [await open(await legacyArchive(version, { nodes: 300, seed: 3 }), warnings)],
      });
      try {
        for (const { uuid, attributes } of trajectories) {
          const expected = JSON.parse(attributes) as { symbols: string[] };
          const served = await app.inject({ url: `${API}/nodes/${uuid}/contents/attributes/` });
          const got = served.json().data.attributes as Record<string, unknown>;
          expect(got.symbols, version).toEqual(expected.symbols);
          expect(got).not.toHaveProperty('array|symbols');
          const files = await app.inject({ url: `${API}/nodes/${uuid}/repo/list` });
          const names = (files.json().data.repo_list as { name: string }[]).map((f) => f.name);
          expect(names).toContain('positions.npy');
          expect(names).not.toContain('symbols.npy');
          const xsf = await app.inject({ url: `${API}/nodes/${uuid}/download?download_format=xsf` });
          expect(xsf.statusCode).toBe(200);
          // Every step's atoms: `PRIMCOORD n` then `n 1`, then one line per atom.
          const counts = [...xsf.body.matchAll(/PRIMCOORD \d+\n\s*(\d+) 1\n/g)].map((m) => Number(m[1]));
          expect(counts.length).toBeGreaterThan(0);
          for (const n of counts) expect(n).toBe(expected.symbols.length);
          const cif = await app.inject({ url: `${API}/nodes/${uuid}/download?download_format=cif` });
          expect(cif.statusCode).toBe(200);
          // The first step's first atom, labelled by its element.
          expect(cif.body).toMatch(new RegExp(`^\\s+${expected.symbols[0]}1\\s`, 'm'));
        }
        expect(warnings.filter((w) => /TrajectoryData/.test(w))).toEqual([]);
      } finally {
        await app.close();
      }
    }
  });
});
