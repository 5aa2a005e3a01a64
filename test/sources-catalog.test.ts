/** The catalog of sources: opened on first use and once, closed least recently used, never under a request. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SourceCatalog, type SourceSpec } from '../src/sources/catalog.js';
import { scanFolders } from '../src/sources/discover.js';
import { checkNames, nameFrom, reservedNames } from '../src/sources/names.js';
import { readSourcesFile } from '../src/sources/sources-file.js';
import type { StorageBackend } from '../src/storage/types.js';
import { tempDir } from './helpers.js';

function fakes() {
  const opened: string[] = [];
  const closed: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  const opener = async (spec: SourceSpec): Promise<StorageBackend> => {
    opened.push(spec.name);
    await gate;
    if (spec.name.startsWith('broken')) throw new Error('not an archive');
    return {
      name: spec.name,
      kind: 'archive',
      aiidaVersion: '2.6.3',
      db: { values: async () => [[42]] },
      close: async () => void closed.push(spec.name),
    } as unknown as StorageBackend;
  };
  return {
    opened,
    closed,
    opener,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return open;
    },
  };
}

const spec = (name: string, version = '1'): SourceSpec => ({
  name,
  kind: 'archive',
  origin: `/data/${name}.aiida`,
  version,
});

describe('the source catalog', () => {
  it('opens nothing at start, a source at its first request, and concurrent first requests open it once', async () => {
    const f = fakes();
    const catalog = new SourceCatalog(f.opener, { maxOpen: 2 });
    catalog.add(['a', 'b', 'c'].map((n) => spec(n)));
    expect(f.opened).toEqual([]);
    expect(catalog.list().map((s) => s.open)).toEqual([false, false, false]);
    const release = f.hold();
    const leases = Promise.all([catalog.acquire('a'), catalog.acquire('a'), catalog.acquire('a')]);
    release();
    const got = await leases;
    expect(f.opened).toEqual(['a']);
    expect(new Set(got.map((l) => l!.backend)).size).toBe(1);
    for (const l of got) l!.release();
    await new Promise((r) => setImmediate(r));
    expect(catalog.list()[0]).toMatchObject({ name: 'a', open: true, nodes: 42, aiidaVersion: '2.6.3' });
    await catalog.close();
    expect(f.closed).toEqual(['a']);
  });

  it('lists the node count of a source opened by the caller (pinned) too', async () => {
    const pinned = await fakes().opener(spec('p'));
    const catalog = SourceCatalog.of([pinned]);
    await new Promise((r) => setImmediate(r));
    expect(catalog.list()[0]).toMatchObject({ name: 'p', open: true, nodes: 42 });
  });

  it('closes the least recently used idle source past the bound, never one a request holds', async () => {
    const f = fakes();
    const catalog = new SourceCatalog(f.opener, { maxOpen: 2 });
    catalog.add(['a', 'b', 'c', 'd'].map((n) => spec(n)));
    const a = (await catalog.acquire('a'))!;
    (await catalog.acquire('b'))!.release();
    (await catalog.acquire('c'))!.release();
    // a is held, so b (least recently used of the idle ones) goes.
    expect(f.closed).toEqual(['b']);
    expect(catalog.openSources).toBe(2);
    (await catalog.acquire('d'))!.release();
    expect(f.closed).toEqual(['b', 'c']);
    a.release();
    expect(
      catalog
        .list()
        .filter((s) => s.open)
        .map((s) => s.name),
    ).toEqual(['a', 'd']);
    await catalog.close();
  });

  it('answers a source that cannot be opened with an error naming it, the same for a few seconds, then tries again', async () => {
    const f = fakes();
    const catalog = new SourceCatalog(f.opener);
    catalog.add([spec('broken-one')]);
    await expect(catalog.acquire('broken-one')).rejects.toThrow(
      /the source "broken-one" cannot be opened: not an archive/,
    );
    await expect(catalog.acquire('broken-one')).rejects.toMatchObject({ status: 502 });
    // Not asked again at every request while it fails.
    expect(f.opened).toEqual(['broken-one']);
    const now = Date.now();
    const later = vi.spyOn(Date, 'now').mockReturnValue(now + 6_000);
    try {
      await expect(catalog.acquire('broken-one')).rejects.toMatchObject({ status: 502 });
      expect(f.opened).toEqual(['broken-one', 'broken-one']);
    } finally {
      later.mockRestore();
    }
    expect(await catalog.acquire('nothing')).toBeUndefined();
  });

  it('answers 503 with Retry-After for a source whose database cannot be reached now', async () => {
    const out = Object.assign(new Error('the database is not reachable now'), { status: 503 });
    const catalog = new SourceCatalog<SourceSpec>(() =>
      Promise.reject(new Error('cannot read the database', { cause: out })),
    );
    catalog.add([spec('far')]);
    await expect(catalog.acquire('far')).rejects.toMatchObject({
      status: 503,
      retryAfter: expect.any(Number),
      message: expect.stringMatching(/^the source "far" cannot be opened now: cannot read the database/),
    });
  });

  it('adds, removes and replaces sources, closing the old ones once their requests are done', async () => {
    const f = fakes();
    const catalog = new SourceCatalog(f.opener);
    catalog.add([spec('a'), spec('b')]);
    const held = (await catalog.acquire('a'))!;
    (await catalog.acquire('b'))!.release();
    const changes = catalog.update([spec('a', '2'), spec('c')]);
    expect(changes).toEqual({ added: ['c'], removed: ['b'], replaced: ['a'] });
    expect(catalog.wasRemoved('b')).toBe(true);
    expect(catalog.has('b')).toBe(false);
    // b was idle: closed now; the old a only once its request is done.
    await new Promise((r) => setImmediate(r));
    expect(f.closed).toEqual(['b']);
    const fresh = (await catalog.acquire('a'))!;
    expect(fresh.backend).not.toBe(held.backend);
    held.release();
    expect(f.closed).toEqual(['b', 'a']);
    fresh.release();
    expect(catalog.names()).toEqual(['a', 'c']);
    expect(catalog.first).toBe('a');
    await catalog.close();
  });

  it('lists by name filter', () => {
    const catalog = new SourceCatalog(fakes().opener);
    catalog.add(['mc3d', 'MC2D', 'twodtopo'].map((n) => spec(n)));
    expect(catalog.list('mc').map((s) => s.name)).toEqual(['mc3d', 'MC2D']);
  });
});

describe('source names', () => {
  it('come from file and profile names, URL-safe', () => {
    expect(nameFrom('/data/mc3d.aiida')).toBe('mc3d');
    expect(nameFrom('/data/MC3D v2 (2024).aiida')).toBe('MC3D-v2-2024');
    expect(nameFrom('/data/profile-folder/')).toBe('profile-folder');
    expect(nameFrom('/data/(((.aiida')).toBe('source');
  });

  it('past 100 characters are cut and told apart by a hash of the whole name', () => {
    const stem = `relax_${'Fe2O3_pbesol_ecut60_kpts8x8x8_smearing-cold_'.repeat(3)}`;
    const names = [`${stem}run1.aiida`, `${stem}run2.aiida`].map((f) => nameFrom(`/data/${f}`));
    expect(names[0]).not.toBe(names[1]);
    for (const name of names) {
      expect(name).toHaveLength(100);
      expect(name.startsWith(stem.slice(0, 80))).toBe(true);
      expect(name).toMatch(/[A-Za-z0-9]-[0-9a-f]{8}$/);
    }
    expect(nameFrom(`/elsewhere/${stem}run1.aiida`)).toBe(names[0]);
    expect(() =>
      checkNames(
        names.map((name, i) => ({ name, origin: `/data/${i}` })),
        reservedNames('/api/v4'),
      ),
    ).not.toThrow();
    expect(nameFrom(`/data/${'a'.repeat(100)}.aiida`)).toBe('a'.repeat(100));
  });

  it('never shadow the server routes, and a clash names both sources', () => {
    const reserved = reservedNames('/api/v4');
    for (const name of [
      'api',
      'docs',
      'healthz',
      'readyz',
      'metrics',
      'sources',
      'optimade',
      'nodes',
      'assets',
    ]) {
      expect(() => checkNames([{ name, origin: `/x/${name}.aiida` }], reserved)).toThrow(/shadow/);
    }
    expect(reservedNames('/quarry/api').has('quarry')).toBe(true);
    expect(() =>
      checkNames(
        [
          { name: 'mc3d', origin: '/a/mc3d.aiida' },
          { name: 'MC3D', origin: '/b/MC3D.aiida' },
        ],
        reserved,
      ),
    ).toThrow('two sources are named "MC3D": /a/mc3d.aiida and /b/MC3D.aiida');
    expect(() => checkNames([{ name: 'a b', origin: 'file' }], reserved)).toThrow(/not URL-safe/);
  });
});

describe('folders and sources files', () => {
  it('finds archives and core.sqlite_dos folders at any depth, and nothing else', () => {
    const dir = tempDir('quarry-scan-');
    mkdirSync(join(dir, 'a/b/c'), { recursive: true });
    mkdirSync(join(dir, 'profile/container'), { recursive: true });
    mkdirSync(join(dir, '.hidden'));
    writeFileSync(join(dir, 'top.aiida'), 'x');
    writeFileSync(join(dir, 'a/b/c/deep.aiida'), 'x');
    writeFileSync(join(dir, 'a/notes.txt'), 'x');
    writeFileSync(join(dir, '.hidden/secret.aiida'), 'x');
    writeFileSync(join(dir, 'profile/database.sqlite'), 'x');
    writeFileSync(join(dir, 'profile/container/inside.aiida'), 'x');
    const found = scanFolders([dir]);
    expect(found.map((s) => [s.name, s.kind])).toEqual([
      ['deep', 'archive'],
      ['profile', 'sqlite-profile'],
      ['top', 'archive'],
    ]);
  });

  it('reads a YAML sources file, and refuses a mistake naming the entry', () => {
    const dir = tempDir('quarry-yaml-');
    const file = join(dir, 'portal.yaml');
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'more'));
    writeFileSync(join(dir, 'data', 'mc3d.aiida'), '');
    writeFileSync(join(dir, 'a.aiida'), '');
    writeFileSync(
      file,
      [
        'sources:',
        '  - archive: data/mc3d.aiida',
        '    query_timeout: 5',
        '  - name: big',
        '    postgres: postgres://reader:secret@db.example.org/aiida',
        '    repository: /srv/big',
        '    replicas: [postgres://reader@replica.example.org/aiida]',
        '  - folder: more',
        '  - profile: lab',
      ].join('\n'),
    );
    const read = readSourcesFile(file);
    expect(read.specs.map((s) => [s.name, s.kind])).toEqual([
      ['mc3d', 'archive'],
      ['big', 'postgres-profile'],
      ['lab', 'postgres-profile'],
    ]);
    expect(read.specs[0]).toMatchObject({ path: join(dir, 'data/mc3d.aiida'), queryTimeout: 5 });
    expect(read.specs[1]).toMatchObject({
      repository: '/srv/big',
      replicas: ['postgres://reader@replica.example.org/aiida'],
    });
    expect(read.specs[1]!.origin).not.toContain('secret');
    expect(read.folders).toEqual([{ folder: join(dir, 'more') }]);
    const bad = (text: string) => {
      writeFileSync(file, text);
      return () => readSourcesFile(file);
    };
    expect(bad('sources: 3')).toThrow(/must hold a list under "sources:"/);
    expect(bad('sources:\n  - archive: a.aiida\n    colour: red')).toThrow(
      /source 1: unknown setting colour/,
    );
    expect(bad('sources:\n  - archive: a.aiida\n    folder: b')).toThrow(/exactly one of/);
    expect(bad('sources:\n  - postgres: postgres://x/y\n    name: p')).toThrow(/needs repository/);
    expect(bad('sources:\n  - archive: a.aiida\n    query_timeout: -1')).toThrow(
      /query_timeout must be a number of seconds above 0/,
    );
    expect(bad('sources: [')).toThrow(/is not valid YAML/);
    // A path that is not there is a typo, said at once, not a source added whose every request fails.
    expect(bad('sources:\n  - archive: a.aiida\n  - archive: data/mc3.aiida')).toThrow(
      new RegExp(`source 2: ${join(dir, 'data/mc3.aiida')} does not exist$`),
    );
    expect(bad('sources:\n  - folder: mroe')).toThrow(/source 1: .*mroe does not exist/);
    expect(bad('sources:\n  - sqlite_dos: more')).toThrow(/source 1: .*more is not a core.sqlite_dos folder/);
  });
});
