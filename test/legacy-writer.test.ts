import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateArchive } from '../src/generate/index.js';
import { LEGACY_VERSIONS, type LegacyVersion } from '../src/generate/legacy/index.js';
import { openArchive } from '../src/storage/index.js';
import { tempDir } from './support/temp.js';
import {
  legacyArchive,
  readLegacyArchive,
  type JsonObject,
  type LegacyContent,
} from './support/legacy-archives.js';
import { runNode } from './support/run-node.js';

const here = dirname(fileURLToPath(import.meta.url));
/** aiida-core's own archives of each version (never committed; present on the project's machines). */
const REAL = process.env.QUARRY_LEGACY_DIR ?? resolve(here, '../../shared/legacy');
const hasReal = existsSync(join(REAL, 'export_0.13_simple.aiida'));

type Rows = Record<string, JsonObject>;
const exportData = (c: LegacyContent) => c.data.export_data as Record<string, Rows>;
const nodeEntity = (c: LegacyContent) => Object.keys(exportData(c)).find((e) => e.endsWith('Node'))!;
const entityOf = (c: LegacyContent, kind: string) =>
  Object.keys(exportData(c)).find((e) => e === kind || e.endsWith(`.Db${kind}`));
const shapeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const keysOf = (rows: Rows) => [...new Set(Object.values(rows).flatMap((r) => Object.keys(r)))].sort();
const sorted = (o: object) => Object.keys(o).sort();

/** Each field's value shapes over all rows. */
function shapes(rows: Rows): Record<string, Set<string>> {
  const out: Record<string, Set<string>> = {};
  for (const row of Object.values(rows))
    for (const [k, v] of Object.entries(row)) (out[k] ??= new Set()).add(shapeOf(v));
  return out;
}

async function written(version: LegacyVersion, format: 'zip' | 'tar.gz' = 'zip') {
  return readLegacyArchive(await legacyArchive(version, { nodes: 200, format }));
}

describe('legacy archive writer', () => {
  describe.skipIf(!hasReal)('writes the keys and shapes of aiida-core’s archive of the same version', () => {
    for (const version of LEGACY_VERSIONS) {
      it(`export version ${version}`, async () => {
        const real = await readLegacyArchive(join(REAL, `export_${version}_simple.aiida`));
        const ours = await written(version);
        expect(ours.metadata.export_version).toBe(version);
        expect(sorted(ours.metadata)).toEqual(sorted(real.metadata));
        expect(ours.metadata.unique_identifiers).toEqual(real.metadata.unique_identifiers);
        const realFields = real.metadata.all_fields_info as Record<string, JsonObject>;
        const ourFields = ours.metadata.all_fields_info as Record<string, JsonObject>;
        expect(sorted(ourFields)).toEqual(sorted(realFields));
        for (const entity of Object.keys(realFields)) expect(ourFields[entity]).toEqual(realFields[entity]);

        expect(Object.keys(ours.data)).toEqual(Object.keys(real.data));
        for (const entity of Object.keys(exportData(real))) {
          const realRows = exportData(real)[entity]!;
          const ourRows = exportData(ours)[entity]!;
          // aiida-core's 0.1-0.3 archives were edited by hand: their group rows carry 1.x's label and
          // type_string while their own all_fields_info declares name and type, which AiiDA 0.x wrote.
          const expectedKeys =
            entity.endsWith('Group') && Number(version.split('.')[1]) <= 3
              ? sorted(realFields[entity]!)
              : keysOf(realRows);
          expect(keysOf(ourRows), entity).toEqual(expectedKeys);
          const realShapes = shapes(realRows);
          for (const [field, kinds] of Object.entries(shapes(ourRows))) {
            const allowed = realShapes[field] ?? new Set(['string']);
            // A null where the real one has a value: foreign keys (a node without computer) only.
            for (const kind of kinds)
              expect(
                allowed.has(kind) || (kind === 'null' && field === 'dbcomputer'),
                `${entity}.${field}`,
              ).toBe(true);
          }
        }
        // Every node type, link type, group type and computer plugin of the real archive is named the same here.
        const types = (c: LegacyContent) =>
          new Set(Object.values(exportData(c)[nodeEntity(c)]!).map((n) => n.node_type ?? n.type));
        for (const t of types(real)) expect(types(ours), `node type ${String(t)}`).toContain(t);
        const linkTypes = (c: LegacyContent) =>
          new Set((c.data.links_uuid as JsonObject[]).map((l) => l.type));
        for (const t of linkTypes(real)) expect(linkTypes(ours)).toContain(t);
        expect(sorted((ours.data.links_uuid as JsonObject[])[0]!)).toEqual(
          sorted((real.data.links_uuid as JsonObject[])[0]!),
        );
        const computers = (c: LegacyContent) =>
          Object.values(exportData(c)[entityOf(c, 'Computer')!]!).map(
            (r) => `${String(r.transport_type)} ${String(r.scheduler_type)}`,
          );
        for (const c of computers(real)) expect(computers(ours)).toContain(c);
        if (Number(version.split('.')[1]) >= 4) {
          const groupTypes = (c: LegacyContent) =>
            new Set(Object.values(exportData(c).Group!).map((g) => g.type_string));
          for (const t of groupTypes(real)) expect(groupTypes(ours)).toContain(t);
        }
      });
    }
  });
  it.skipIf(hasReal)(
    '(aiida-core’s archives are not in ../shared/legacy: their comparison is skipped)',
    () => {},
  );

  for (const version of ['0.1', '0.3', '0.4', '0.13'] as const) {
    it(`${version}: every node has its folder and files, links and groups name nodes of the archive`, async () => {
      const ours = await written(version);
      const nodes = exportData(ours)[nodeEntity(ours)]!;
      expect(Object.keys(nodes)).toHaveLength(200);
      const uuids = new Set(Object.values(nodes).map((n) => n.uuid as string));
      const names = new Set(ours.names);
      for (const uuid of uuids) {
        const folder = `nodes/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid.slice(4)}/`;
        expect(names.has(folder) && names.has(`${folder}path/`), folder).toBe(true);
      }
      // Files: a UPF pseudopotential and a calcjob's input, each under its node's folder.
      const upf = Object.values(nodes).find((n) => String(n.node_type ?? n.type).includes('upf.UpfData'))!;
      const upfFolder = `nodes/${String(upf.uuid).slice(0, 2)}/${String(upf.uuid).slice(2, 4)}/${String(upf.uuid).slice(4)}/`;
      const upfFile = `${upfFolder}path/${String(upf.label)}`;
      expect(ours.files.get(upfFile)?.toString()).toMatch(/<UPF|PP_HEADER/);
      const calc = Object.values(nodes).find(
        (n) =>
          String(n.node_type ?? n.type).includes('CalcJobNode') ||
          String(n.type).startsWith('calculation.job.'),
      )!;
      const calcFolder = `nodes/${String(calc.uuid).slice(0, 2)}/${String(calc.uuid).slice(2, 4)}/${String(calc.uuid).slice(4)}/`;
      const inputFolder = Number(version.split('.')[1]) <= 3 ? 'raw_input' : 'path';
      expect(ours.files.get(`${calcFolder}${inputFolder}/aiida.in`)?.toString()).toContain('&CONTROL');

      for (const link of ours.data.links_uuid as JsonObject[]) {
        expect(uuids.has(link.input as string) && uuids.has(link.output as string)).toBe(true);
      }
      const groups = new Set(Object.values(exportData(ours)[entityOf(ours, 'Group')!]!).map((g) => g.uuid));
      const members = Object.entries(ours.data.groups_uuid as Record<string, string[]>);
      expect(members.length).toBeGreaterThan(2);
      for (const [group, list] of members) {
        expect(groups.has(group)).toBe(true);
        for (const uuid of list) expect(uuids.has(uuid)).toBe(true);
      }
      expect(sorted(ours.data.node_attributes as object)).toEqual(sorted(nodes));
      if ('node_extras' in ours.data) expect(sorted(ours.data.node_extras as object)).toEqual(sorted(nodes));
      // Users, computers, codes, band structures, workflows: the provenance `quarry generate` makes.
      expect(Object.keys(exportData(ours)[entityOf(ours, 'User')!]!)).toHaveLength(2);
      expect(Object.keys(exportData(ours)[entityOf(ours, 'Computer')!]!)).toHaveLength(2);
      const types = Object.values(nodes).map((n) => String(n.node_type ?? n.type));
      expect(types.some((t) => t.includes('code.Code.'))).toBe(true);
      expect(types.some((t) => t.includes('BandsData'))).toBe(true);
      expect(types.some((t) => t.includes('StructureData'))).toBe(true);
      expect(
        types.some((t) => t.includes('WorkChainNode') || t === 'calculation.work.WorkCalculation.'),
      ).toBe(true);
    });
  }

  it('0.4 and 0.13: logs and comments name nodes of the archive; 0.4 has the conversion companions', async () => {
    for (const version of ['0.4', '0.13'] as const) {
      const ours = readLegacyArchive(await legacyArchive(version, { nodes: 1500 }));
      const content = await ours;
      const nodes = exportData(content).Node!;
      for (const kind of ['Log', 'Comment']) {
        const rows = Object.values(exportData(content)[kind] ?? {});
        expect(rows.length, kind).toBeGreaterThan(0);
        for (const row of rows) expect(String(row.dbnode) in nodes).toBe(true);
      }
      if (version === '0.4') {
        const attributes = content.data.node_attributes as Record<string, JsonObject>;
        const conversion = content.data.node_attributes_conversion as Record<string, JsonObject>;
        for (const pk of Object.keys(nodes)) expect(sorted(conversion[pk]!)).toEqual(sorted(attributes[pk]!));
      }
    }
  });

  it('writes the same bytes for the same seed, and the same data in a tar.gz', async () => {
    const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    const a = await legacyArchive('0.13', { nodes: 100, seed: 7 });
    const b = await legacyArchive('0.13', { nodes: 100, seed: 7 });
    expect(digest(a)).toBe(digest(b));
    const zip = await readLegacyArchive(a);
    const tar = await readLegacyArchive(
      await legacyArchive('0.13', { nodes: 100, seed: 7, format: 'tar.gz' }),
    );
    expect(tar.data).toEqual(zip.data);
    expect(tar.metadata).toEqual(zip.metadata);
    expect([...tar.files.keys()].sort()).toEqual([...zip.files.keys()].sort());
  });

  // In a process of its own, for its peak RSS alone: the built generator (npm run build).
  const built = resolve(here, '../dist/generate/legacy/index.js');
  it.skipIf(!existsSync(built))(
    'writes data.json as a stream: 10^5 nodes in bounded memory',
    { timeout: 180_000 },
    async () => {
      const { writeRss, dataJsonBytes } = await runNode<{ writeRss: number; dataJsonBytes: number }>(
        `
      import { generateLegacyArchive } from ${JSON.stringify(built)};
      import { statSync, rmSync, mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import yauzl from 'yauzl';
      const dir = mkdtempSync(join(tmpdir(), 'quarry-legacy-rss-'));
      try {
        const out = join(dir, 'big.aiida');
        await generateLegacyArchive({ nodes: Number(process.argv[1]), out, exportVersion: '0.13' });
        const writeRss = process.resourceUsage().maxRSS * 1024;
        const size = await new Promise((ok, ko) => yauzl.open(out, { lazyEntries: true }, (e, z) => {
          if (e) return ko(e);
          z.on('entry', (entry) => { if (entry.fileName === 'data.json') { ok(entry.uncompressedSize); z.close(); } else z.readEntry(); });
          z.readEntry();
        }));
        process.stdout.write(JSON.stringify({ writeRss, dataJsonBytes: size }));
      } finally { rmSync(dir, { recursive: true, force: true }); }
      `,
        ['100000'],
      );
      // data.json alone is far larger than the memory the whole write took: it never was in memory.
      expect(dataJsonBytes).toBeGreaterThan(70e6);
      expect(writeRss).toBeLessThan(250e6);
    },
  );

  it('converts back, in every family, to the graph it was written from (the main_0001 archive of the seed)', async () => {
    const graph = async (file: string) => {
      const b = await openArchive(file, { cacheDir: tempDir('quarry-cache-') });
      const rows = (sql: string) => b.db.all({ sql, params: [] });
      try {
        // Codes were one type before AiiDA 2.1 (InstalledCode and PortableCode): compared as one here.
        const code = "CASE WHEN node_type LIKE 'data.core.code.%' THEN 'code' ELSE node_type END";
        return {
          nodes: (await rows(`SELECT uuid || ' ' || ${code} AS r FROM db_dbnode`)).map((r) => r.r).sort(),
          links: (
            await rows(`SELECT i.uuid || ' ' || o.uuid || ' ' || l.type || ' ' || l.label AS r FROM db_dblink l
              JOIN db_dbnode i ON i.id = l.input_id JOIN db_dbnode o ON o.id = l.output_id`)
          )
            .map((r) => r.r)
            .sort(),
          groups: (
            await rows(`SELECT g.uuid || ' ' || g.label || ' ' || g.type_string || ' ' || n.uuid AS r FROM db_dbgroup g
              LEFT JOIN db_dbgroup_dbnodes m ON m.dbgroup_id = g.id LEFT JOIN db_dbnode n ON n.id = m.dbnode_id`)
          )
            .map((r) => r.r)
            .sort(),
          processTypes: (await rows("SELECT DISTINCT coalesce(process_type, '') AS p FROM db_dbnode"))
            .map((r) => r.p)
            .sort(),
        };
      } finally {
        await b.close();
      }
    };
    const main = join(tempDir(), 'main.aiida');
    await generateArchive({ nodes: 300, out: main, seed: 3 });
    const expected = await graph(main);
    for (const version of ['0.1', '0.3', '0.4', '0.7', '0.13'] as const) {
      const converted = await graph(await legacyArchive(version, { nodes: 300, seed: 3 }));
      expect(converted.nodes, version).toEqual(expected.nodes);
      expect(converted.links, version).toEqual(expected.links);
      expect(converted.groups, version).toEqual(expected.groups);
      // 0.1-0.3 had no process types: aiida-core's migration infers the calcjobs' alone.
      if (version === '0.1' || version === '0.3')
        expect(converted.processTypes).toEqual(['', 'aiida.calculations:quantumespresso.pw']);
      else expect(converted.processTypes, version).toEqual(expected.processTypes);
    }
  });
});
