import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openArchive } from '../src/storage/index.js';
import { walkRepository } from '../src/domain/repository-tree.js';
import { generateArchive, DEMO_NODES } from '../src/generate/index.js';
import { tempDir } from './helpers.js';
import type { StorageBackend } from '../src/storage/types.js';
import { richFile } from './conformance/corpus.js';

const richArchive = richFile('rich.aiida');

async function open(file: string) {
  return openArchive(file, { cacheDir: tempDir('quarry-cache-') });
}

const all = (b: StorageBackend, sql: string) => b.db.all({ sql, params: [] });

describe('archive generator', () => {
  it('writes exactly the requested nodes, with every common AiiDA type, and a consistent graph', async () => {
    const out = join(tempDir(), 'demo.aiida');
    await generateArchive({ nodes: DEMO_NODES, out, seed: 1 });
    const b = await open(out);
    try {
      expect((await all(b, 'SELECT count(*) AS n FROM db_dbnode'))[0]!.n).toBe(DEMO_NODES);
      const types = new Set((await all(b, 'SELECT DISTINCT node_type AS t FROM db_dbnode')).map((r) => r.t));
      for (const t of [
        'data.core.structure.StructureData.',
        'data.core.cif.CifData.',
        'data.core.array.kpoints.KpointsData.',
        'data.core.array.bands.BandsData.',
        'data.core.array.ArrayData.',
        'data.core.array.trajectory.TrajectoryData.',
        'data.core.dict.Dict.',
        'data.core.int.Int.',
        'data.core.float.Float.',
        'data.core.code.installed.InstalledCode.',
        'data.core.upf.UpfData.',
        'data.core.folder.FolderData.',
        'process.calculation.calcjob.CalcJobNode.',
        'process.workflow.workchain.WorkChainNode.',
        'process.calculation.calcfunction.CalcFunctionNode.',
        'process.workflow.workfunction.WorkFunctionNode.',
      ]) {
        expect(types, t).toContain(t);
      }
      const linkTypes = new Set((await all(b, 'SELECT DISTINCT type AS t FROM db_dblink')).map((r) => r.t));
      expect([...linkTypes].sort()).toEqual(['call_calc', 'create', 'input_calc', 'input_work', 'return']);
      const dangling = await all(
        b,
        'SELECT count(*) AS n FROM db_dblink l LEFT JOIN db_dbnode i ON i.id = l.input_id LEFT JOIN db_dbnode o ON o.id = l.output_id WHERE i.id IS NULL OR o.id IS NULL',
      );
      expect(dangling[0]!.n).toBe(0);
      for (const table of ['db_dbuser', 'db_dbcomputer', 'db_dbgroup', 'db_dbcomment', 'db_dblog']) {
        expect((await all(b, `SELECT count(*) AS n FROM ${table}`))[0]!.n, table).toBeGreaterThan(1);
      }
      // Every file a node lists is in the zip, under the sha256 of its content.
      const metadata = await all(
        b,
        "SELECT repository_metadata AS r FROM db_dbnode WHERE repository_metadata != '{}'",
      );
      expect(metadata.length).toBeGreaterThan(100);
      for (const { r } of metadata) {
        for (const [, key] of walkRepository(JSON.parse(r as string))) {
          const object = await b.repository.get(key);
          expect(object, key).toBeDefined();
          const hash = createHash('sha256');
          for await (const chunk of await object!.stream()) hash.update(chunk as Buffer);
          expect(hash.digest('hex')).toBe(key);
        }
      }
    } finally {
      await b.close();
    }
  });

  it('is deterministic for a seed', async () => {
    const dump = async (seed: number) => {
      const out = join(tempDir(), 'd.aiida');
      await generateArchive({ nodes: 200, out, seed });
      const b = await open(out);
      const rows = await all(b, 'SELECT * FROM db_dbnode ORDER BY id');
      const links = await all(b, 'SELECT * FROM db_dblink ORDER BY id');
      await b.close();
      return JSON.stringify([rows, links]);
    };
    const first = await dump(3);
    expect(await dump(3)).toBe(first);
    expect(await dump(4)).not.toBe(first);
  });

  it('uses the schema of real main_0001 archives', async () => {
    const out = join(tempDir(), 's.aiida');
    await generateArchive({ nodes: 100, out });
    const schema = async (file: string) => {
      const b = await open(file);
      const rows = await all(
        b,
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
      );
      await b.close();
      return rows;
    };
    expect(await schema(out)).toEqual(await schema(richArchive));
  });
});
