/**
 * Legacy archives written by the test itself (test/support/legacy-files.ts), so that a clone checks the
 * conversion without aiida-core's files: each container (zip, tar.gz, folder) is served, converted once, and
 * every kind of bad input is refused in one line or served with a warning, never a crash or a hang.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { extractionCount } from '../src/storage/archive/extract.js';
import { SourceCatalog } from '../src/sources/catalog.js';
import { scanFolders, verdictsKept } from '../src/sources/discover.js';
import { sourceOpener } from '../src/sources/open.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { faultyServer } from './support/faulty-server.js';
import { legacyDir, legacyPresent, legacySkipLine } from './support/legacy-corpus.js';
import { tinyEntries, tinyExport, UUID, writeLegacyTarGz, writeLegacyZip } from './support/legacy-files.js';
import { nginxForTests, serveFiles } from './support/nginx-files.js';
import { tempDir } from './support/temp.js';

const opened: StorageBackend[] = [];
afterAll(async () => {
  for (const b of opened) await b.close();
});

async function open(file: string, cacheDir = tempDir('quarry-cache-'), warnings: string[] = []) {
  const backend = await openArchive(file, { cacheDir, onWarning: (line) => warnings.push(line) });
  opened.push(backend);
  return backend;
}

/** The one-line message an archive is refused with. */
async function refusal(file: string): Promise<string> {
  try {
    await open(file);
  } catch (error) {
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`${file} was served`);
}

const API = '/api/v4';

async function check(backend: StorageBackend) {
  const app = await buildApp({ backends: [backend] });
  try {
    const nodes = await app.inject({ url: `${API}/nodes/` });
    expect(nodes.json().data.nodes.map((n: { uuid: string }) => n.uuid)).toEqual([
      UUID.code,
      UUID.calc,
      UUID.out,
    ]);
    const links = await app.inject({
      method: 'POST',
      url: `${API}/querybuilder/`,
      payload: {
        path: [
          { entity_type: '', orm_base: 'node', tag: 'a' },
          { entity_type: '', orm_base: 'node', tag: 'b', with_incoming: 'a', edge_tag: 'l' },
        ],
        project: { l: ['id', 'label', 'type'] },
        order_by: [{ l: ['id'] }],
      },
    });
    expect(links.json().data.l).toEqual([
      { id: 1, label: 'code', type: 'input_calc' },
      { id: 2, label: 'output_parameters', type: 'create' },
    ]);
    const attributes = await app.inject({ url: `${API}/nodes/${UUID.out}/contents/attributes/` });
    // The float as data.json writes it, as aiida-core's migration keeps it.
    expect(attributes.body).toContain('"energy":40.0');
    const file = await app.inject({ url: `${API}/nodes/${UUID.calc}/repo/contents?filename="aiida.in"` });
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('&CONTROL\n/\n');
    const group = await app.inject({ url: `${API}/groups/${UUID.group}/` });
    expect(group.statusCode).toBe(200);
    const server = await app.inject({ url: `${API}/server/` });
    expect(server.json().data).toMatchObject({ AiiDA_version: '2.0.2', archive_export_version: '0.13' });
  } finally {
    await app.close();
  }
}

/** data.json of the tiny export with its float written as Python writes it. */
const dataText = () => JSON.stringify(tinyExport().data).replace('"energy":40', '"energy":40.0');

describe('legacy archives written here', () => {
  it('serves a zip, converting it once into the cache', async () => {
    const file = join(tempDir(), 'tiny.aiida');
    await writeLegacyZip(file, tinyEntries(dataText()));
    const cacheDir = tempDir('quarry-cache-');
    const before = extractionCount();
    await check(await open(file, cacheDir));
    await check(await open(file, cacheDir));
    expect(extractionCount()).toBe(before + 1);
  });

  it("keeps a zip's empty folders (its explicit folder entries), as aiida-core's migration does", async () => {
    const file = join(tempDir(), 'folders.aiida');
    const calc = `nodes/${UUID.calc.slice(0, 2)}/${UUID.calc.slice(2, 4)}/${UUID.calc.slice(4)}/`;
    const entries = tinyEntries(dataText());
    const named = Object.keys(entries);
    // In the order AiiDA 1.x wrote them: every folder's entry before what it holds.
    await writeLegacyZip(file, {
      [named[0]!]: entries[named[0]!]!,
      [named[1]!]: entries[named[1]!]!,
      [calc]: '',
      [`${calc}raw_input/`]: '',
      [`${calc}raw_input/aiida.in`]: entries[`${calc}raw_input/aiida.in`]!,
      [`${calc}raw_input/out/`]: '',
      [`${calc}raw_input/pseudo/`]: '',
      [`${calc}path/`]: '',
    });
    const app = await buildApp({ backends: [await open(file)] });
    try {
      const list = await app.inject({ url: `${API}/nodes/${UUID.calc}/repo/list` });
      expect(list.json().data.repo_list).toEqual([
        { name: 'aiida.in', type: 'FILE' },
        { name: 'out', type: 'DIRECTORY' },
        { name: 'pseudo', type: 'DIRECTORY' },
      ]);
      const out = await app.inject({ url: `${API}/nodes/${UUID.calc}/repo/list?filename="out"` });
      expect(out.statusCode).toBe(200);
      expect(out.json().data.repo_list).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('serves a tar.gz and an extracted folder', async () => {
    const tar = join(tempDir(), 'tiny.tar.gz');
    await writeLegacyTarGz(tar, tinyEntries(dataText()));
    await check(await open(tar));
    const folder = join(tempDir(), 'tiny');
    for (const [name, data] of Object.entries(tinyEntries(dataText()))) {
      mkdirSync(dirname(join(folder, name)), { recursive: true });
      writeFileSync(join(folder, name), data);
    }
    await check(await open(folder));
  });

  it('serves the rest of an archive whose links or group members are missing, saying what was left out', async () => {
    const { data, metadata } = tinyExport();
    data.links_uuid.push({ input: 'no-such-node', output: UUID.calc, label: 'x', type: 'input_calc' });
    data.groups_uuid[UUID.group]!.push('unknown-member');
    const file = join(tempDir(), 'dangling.aiida');
    await writeLegacyZip(file, tinyEntries(data, metadata));
    const warnings: string[] = [];
    const backend = await open(file, tempDir('quarry-cache-'), warnings);
    expect(warnings).toEqual([
      expect.stringMatching(
        /1 link\(s\) left out: they join nodes the archive does not hold \(no-such-node ->/,
      ),
      expect.stringMatching(/1 group member\(s\) dropped/),
    ]);
    const links = await backend.db.all({ sql: 'SELECT count(*) AS n FROM db_dblink', params: [] });
    expect(links).toEqual([{ n: 2 }]);
  });

  it('refuses bad input in one line', async () => {
    const dir = tempDir();
    const zip = async (name: string, data: unknown, metadata: unknown = tinyExport().metadata) => {
      const file = join(dir, name);
      await writeLegacyZip(file, tinyEntries(data, metadata));
      return file;
    };
    expect(await refusal(await zip('notjson.aiida', '{"export_data": {"Node": {'))).toMatch(
      /data\.json is not valid JSON/,
    );
    expect(await refusal(await zip('garbage.aiida', 'this is not json'))).toMatch(
      /data\.json is not valid JSON/,
    );
    expect(await refusal(await zip('shape.aiida', { export_data: { Node: { '1': 'a string' } } }))).toMatch(
      /an entry of export_data\.Node is not an object/,
    );
    expect(await refusal(await zip('pk.aiida', { export_data: { Node: { abc: { uuid: 'x' } } } }))).toMatch(
      /not an integer id/,
    );
    for (const version of ['0.14', '0.0']) {
      expect(
        await refusal(await zip(`v${version}.aiida`, tinyExport().data, { export_version: version })),
      ).toMatch(new RegExp(`unknown export version "${version.replace('.', '\\.')}"`));
    }
    const deep = `{"export_data": {"Node": {"1": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    expect(await refusal(await zip('deep.aiida', deep))).toMatch(/nests values more than 1000 levels deep/);
    const twins = tinyExport().data;
    twins.export_data.Node['3']!.uuid = UUID.code;
    expect(await refusal(await zip('twins.aiida', twins))).toMatch(/two nodes with the same uuid/);
  });

  it('refuses a truncated tar.gz, a tar.gz without metadata.json and a zip bomb in one line', async () => {
    const dir = tempDir();
    const tar = join(dir, 'whole.tar.gz');
    await writeLegacyTarGz(tar, {
      ...tinyEntries(dataText()),
      'nodes/ab/cd/big/path/f': 'x'.repeat(200_000),
    });
    const cut = join(dir, 'cut.aiida');
    const bytes = readFileSync(tar);
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await refusal(cut)).toMatch(
      /cut\.aiida cannot be converted \(unexpected end of file\).*cut short/,
    );
    const empty = join(dir, 'empty.aiida');
    await writeLegacyTarGz(empty, { 'test_pf.py': 'print(1)\n' });
    expect(await refusal(empty)).toMatch(/empty\.aiida: no metadata\.json, so it is not an AiiDA archive/);
    // A zip whose directory says data.json unpacks to 4 GB: refused before anything is read.
    const bomb = join(dir, 'bomb.aiida');
    await writeLegacyZip(bomb, tinyEntries(dataText()));
    const zip = readFileSync(bomb);
    for (let at = zip.indexOf(CENTRAL); at !== -1; at = zip.indexOf(CENTRAL, at + 4)) {
      const name = zip.subarray(at + 46, at + 46 + zip.readUInt16LE(at + 28)).toString();
      if (name === 'data.json') zip.writeUInt32LE(0xfffffff0, at + 24);
    }
    writeFileSync(bomb, zip);
    expect(await refusal(bomb)).toMatch(/bomb\.aiida unpacks to \d+ bytes, \d+ times its size: a zip bomb/);
  });

  it('serves the good archives of a portal folder and refuses the bad one for itself', async () => {
    const folder = tempDir();
    await writeLegacyZip(join(folder, 'good.aiida'), tinyEntries(dataText()));
    await writeLegacyZip(join(folder, 'bad.aiida'), tinyEntries('{"export_data": ['));
    const catalog = new SourceCatalog(sourceOpener({ cacheDir: tempDir('quarry-cache-') }), { maxOpen: 4 });
    catalog.add(scanFolders([folder]));
    const app = await buildApp({ catalog });
    try {
      const bad = await app.inject({ url: '/bad/api/v4/nodes/' });
      expect(bad.statusCode).toBe(502);
      expect(bad.json().message).toMatch(/the source "bad" cannot be opened: .*data\.json is not valid JSON/);
      const good = await app.inject({ url: '/good/api/v4/nodes/' });
      expect(good.statusCode).toBe(200);
      const index = await app.inject({ url: '/sources/' });
      expect(index.json().sources).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'good', export_version: '0.13' })]),
      );
    } finally {
      await app.close();
      await catalog.close();
    }
  });

  it.skipIf(!nginxForTests())('serves a zip at an http(s) URL, reading its files by range', async () => {
    const folder = tempDir();
    await writeLegacyZip(join(folder, 'tiny.aiida'), tinyEntries(dataText()));
    const server = await serveFiles(folder, tempDir('quarry-legacy-nginx-'));
    try {
      await check(await open(server.url('tiny.aiida')));
    } finally {
      await server.stop();
    }
  });

  it.skipIf(!legacyPresent())(
    "refuses aiida-core's empty.aiida (a tar.gz without metadata.json) in one line",
    async () => {
      expect(await refusal(join(legacyDir(), 'empty.aiida'))).toMatch(
        /no metadata\.json, so it is not an AiiDA archive/,
      );
    },
  );
});

if (!legacyPresent()) console.log(legacySkipLine());

const CENTRAL = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

describe('legacy tarballs in a portal folder', () => {
  it('are found by a folder scan, named as .aiida files are, and other tarballs are not', async () => {
    const folder = tempDir();
    await writeLegacyTarGz(join(folder, 'paper 2019.tar.gz'), tinyEntries(dataText()));
    mkdirSync(join(folder, 'nested'));
    await writeLegacyTarGz(join(folder, 'nested', 'old.tgz'), tinyEntries(dataText()));
    // A tarball of something else (a disk-objectstore container, say), and a gzip that is no tar at all.
    await writeLegacyTarGz(join(folder, 'container.tar.gz'), { 'loose/ab/cdef': 'x', 'config.json': '{}' });
    writeFileSync(join(folder, 'notes.tar.gz'), gzipSync(Buffer.from('not a tar')));
    writeFileSync(
      join(folder, 'truncated.tgz'),
      readFileSync(join(folder, 'paper 2019.tar.gz')).subarray(0, 5),
    );
    const found = scanFolders([folder]);
    expect(found.map((s) => [s.name, s.kind])).toEqual([
      ['old', 'archive'],
      ['paper-2019', 'archive'],
    ]);
    const catalog = new SourceCatalog(sourceOpener({ cacheDir: tempDir('quarry-cache-') }), { maxOpen: 4 });
    catalog.add(found);
    const app = await buildApp({ catalog });
    try {
      for (const name of ['old', 'paper-2019']) {
        const nodes = await app.inject({ url: `/${name}/api/v4/nodes/` });
        expect(nodes.statusCode).toBe(200);
        expect(nodes.json().data.nodes).toHaveLength(3);
      }
      const index = await app.inject({ url: '/sources/' });
      expect(index.json().sources).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'old', export_version: '0.13' })]),
      );
    } finally {
      await app.close();
      await catalog.close();
    }
  });
});

describe('archives in a portal folder, by their content', () => {
  it('are found whatever their names (zips named .tar.gz, .zip, .aiida.zip), and each file skipped is said', async () => {
    const folder = tempDir();
    // AiiDA 1.5+ wrote zips that projects named *.tar.gz; others name them *.zip or *.aiida.zip.
    await writeLegacyZip(join(folder, 'fleur_relax.tar.gz'), tinyEntries(dataText()));
    await writeLegacyZip(join(folder, 'kkr.zip'), tinyEntries(dataText()));
    await writeLegacyZip(join(folder, 'scf.aiida.zip'), tinyEntries(dataText()));
    // An archive's folder entries first and metadata.json last, as a zip of a folder may hold them.
    const last = tinyEntries(dataText());
    const { 'metadata.json': metadata, ...rest } = last;
    await writeLegacyZip(join(folder, 'written-last.zip'), {
      'nodes/': '',
      ...rest,
      'metadata.json': metadata!,
    });
    await writeLegacyZip(join(folder, 'pseudos.zip'), { 'Si.upf': '<UPF/>', 'sub/metadata.json': '{}' });
    writeFileSync(join(folder, 'README.md'), '# data\n');
    writeFileSync(join(folder, 'run.py'), 'print(1)\n');
    writeFileSync(join(folder, 'fake.zip'), 'not a zip');
    const lines: string[] = [];
    const found = scanFolders([folder], (line) => lines.push(line));
    expect(found.map((s) => s.name)).toEqual(['fleur_relax', 'kkr', 'scf', 'written-last']);
    expect(lines).toEqual([
      `${join(folder, 'fake.zip')} skipped: neither a zip nor a tar.gz, whatever its name says`,
      `${join(folder, 'pseudos.zip')} skipped: a zip without metadata.json at its top, so no AiiDA archive`,
      `${folder}: 2 other file(s) skipped: neither a zip nor a tar.gz, so no AiiDA archive`,
    ]);
    // A rescan says nothing of the files it has said already.
    const again: string[] = [];
    expect(scanFolders([folder], (line) => again.push(line))).toHaveLength(4);
    expect(again).toEqual([]);
    // Files gone from the folder are forgotten: a drop folder's scans keep only what is there.
    const kept = verdictsKept();
    rmSync(join(folder, 'README.md'));
    rmSync(join(folder, 'pseudos.zip'));
    expect(scanFolders([folder], () => {})).toHaveLength(4);
    expect(verdictsKept()).toBe(kept - 2);
    const catalog = new SourceCatalog(sourceOpener({ cacheDir: tempDir('quarry-cache-') }), { maxOpen: 4 });
    catalog.add(found);
    const app = await buildApp({ catalog });
    try {
      for (const { name } of found) {
        const nodes = await app.inject({ url: `/${name}/api/v4/nodes/` });
        expect(nodes.statusCode, name).toBe(200);
        expect(nodes.json().data.nodes).toHaveLength(3);
      }
    } finally {
      await app.close();
      await catalog.close();
    }
  });
});

describe('legacy tarballs at an http URL', () => {
  it('are downloaded once into the cache, converted, served, and the download removed', async () => {
    const folder = tempDir();
    await writeLegacyTarGz(join(folder, 'tiny.tar.gz'), tinyEntries(dataText()));
    writeFileSync(join(folder, 'noise.tar.gz'), gzipSync(Buffer.from('not a tar')));
    // Files served with ranges and a strong ETag, as Quarry asks of a server; without faults here.
    const server = await faultyServer(folder, () => 'none');
    const cacheDir = tempDir('quarry-cache-');
    try {
      const url = server.url('tiny.tar.gz');
      const before = extractionCount();
      const backend = await open(url, cacheDir);
      expect(backend.name).toBe('tiny');
      expect(backend.exportVersion).toBe('0.13');
      await check(backend);
      await check(await open(url, cacheDir));
      expect(extractionCount()).toBe(before + 1);
      const left = readdirSync(join(cacheDir, 'archives'));
      expect(left.filter((name) => name.endsWith('.download'))).toEqual([]);
      expect(await refusal(server.url('noise.tar.gz'))).toMatch(/noise\.tar\.gz cannot be converted/);
    } finally {
      await server.close();
    }
  });
});
