/**
 * The bounds of a portal, in this process: one open-file budget closing the least recently used idle holders,
 * names that stay with their sources, folder scans that fail without changing the catalog, running out of a
 * resource answered 503 (never a verdict on the data), and sources files that are not files of sources.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorAnswer } from '../src/http/failures.js';
import { SourceCatalog, type SourceSpec } from '../src/sources/catalog.js';
import { FolderScanError, scanFolders } from '../src/sources/discover.js';
import { assignNames, reservedNames } from '../src/sources/names.js';
import { Portal } from '../src/sources/portal.js';
import { readSourcesFile } from '../src/sources/sources-file.js';
import { loadSourcesFile } from '../src/sources/sources-file-reader.js';
import type { PortalSpec } from '../src/sources/spec.js';
import { FileBudget, type FileHolder } from '../src/storage/file-budget.js';
import { asShortage, ResourceShortageError } from '../src/storage/shortage.js';
import type { StorageBackend } from '../src/storage/types.js';
import { tempDir } from './helpers.js';

function holder(name: string, closed: string[], files = 2) {
  const h = {
    users: 0,
    files,
    busy: () => h.users > 0,
    close: () => void closed.push(name),
  };
  return h satisfies FileHolder;
}

describe('the open-file budget', () => {
  it('closes the least recently used idle holders past the bound, never one in use', () => {
    const closed: string[] = [];
    const budget = new FileBudget(6, 0);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => holder(n, closed));
    budget.add(a!);
    budget.add(b!);
    budget.add(c!);
    expect(budget.used).toBe(6);
    a!.users = 1;
    budget.touch(b!);
    budget.add(d!);
    // a is the least recent but in use: c, the next, is closed.
    expect(closed).toEqual(['c']);
    expect(budget.used).toBe(6);
    a!.users = 0;
    budget.add(holder('e', closed));
    expect(closed).toEqual(['c', 'a']);
    expect(budget.closedForRoom).toBe(2);
  });

  it('closes holders no request used for a while, then says the process is idle', async () => {
    const closed: string[] = [];
    const budget = new FileBudget(100, 300);
    let idle = 0;
    budget.onIdle(() => (idle += 1));
    const busy = holder('busy', closed);
    busy.users = 1;
    budget.add(holder('quiet', closed));
    budget.add(busy);
    await new Promise((r) => setTimeout(r, 700));
    expect(closed).toEqual(['quiet']);
    expect(idle).toBe(0);
    busy.users = 0;
    await new Promise((r) => setTimeout(r, 700));
    expect(closed).toEqual(['quiet', 'busy']);
    expect(idle).toBe(1);
    expect(budget.used).toBe(0);
  });

  it('is what the catalog takes its open sources from', async () => {
    const budget = new FileBudget(4, 0);
    const closed: string[] = [];
    const catalog = new SourceCatalog(
      async (spec: SourceSpec) =>
        ({
          name: spec.name,
          kind: 'archive',
          aiidaVersion: '2.6.3',
          db: { values: async () => [[1]] },
          close: async () => void closed.push(spec.name),
        }) as unknown as StorageBackend,
      { files: budget },
    );
    catalog.add(['s1', 's2', 's3'].map((name) => ({ name, kind: 'archive', origin: name, version: '1' })));
    for (const name of ['s1', 's2', 's3']) (await catalog.acquire(name))!.release();
    // Two files each, four in the budget: the least recently used was closed for the third.
    expect(closed).toEqual(['s1']);
    expect(budget.used).toBe(4);
    await catalog.close();
  });
});

describe('running out of a resource', () => {
  it('is a 503 naming the resource, never a verdict on the data', () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files, open /data/a.aiida'), {
      code: 'EMFILE',
    });
    const cases = [
      emfile,
      new Error('Worker initialization failure: EMFILE'),
      Object.assign(new Error('/data/a.aiida is a damaged zip (EMFILE: too many open files)'), {
        status: 502,
      }),
      new Error('the source "a" cannot be opened', {
        cause: Object.assign(new Error('x'), { code: 'ENOMEM' }),
      }),
      // Kept as a message only by a caller that wrapped it.
      new Error(
        `/data/a.aiida: its database cannot be read (${new ResourceShortageError('open files').message})`,
      ),
    ];
    for (const error of cases) {
      const { status, body } = errorAnswer(error);
      expect(status, error.message).toBe(503);
      expect(body.message).toMatch(/run out of (open files|memory) for now/);
      expect(body.message).not.toMatch(/damaged|export/);
      expect((error as { retryAfter?: number }).retryAfter).toBeGreaterThan(0);
    }
    expect(asShortage(new Error('not an archive'))).toBeUndefined();
  });

  it('when opening a source is refused 503 and tried again at the next request', async () => {
    let tries = 0;
    const catalog = new SourceCatalog(async () => {
      tries += 1;
      throw Object.assign(new Error('EMFILE: too many open files, open x'), { code: 'EMFILE' });
    });
    catalog.add([{ name: 'a', kind: 'archive', origin: '/a.aiida', version: '1' }]);
    for (let i = 0; i < 2; i++) {
      const error = await catalog.acquire('a').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceShortageError);
      expect((error as Error).message).toMatch(/the source "a"/);
    }
    expect(tries).toBe(2);
    await catalog.close();
  });
});

describe('names served stay with their sources', () => {
  const reserved = reservedNames('/api/v4');
  const at = (name: string, origin: string) => ({ name, origin });

  for (const [held, newcomer] of [
    ['rich', 'RICH'],
    ['RICH', 'rich'],
  ] as const) {
    it(`${newcomer}.aiida beside a served ${held}.aiida is refused naming both, served once the name is free`, () => {
      const served = new Map([[held, `/d/${held}.aiida`]]);
      // Sorted either way round: the served one keeps its name.
      for (const found of [
        [at(held, `/d/${held}.aiida`), at(newcomer, `/d/${newcomer}.aiida`)],
        [at(newcomer, `/d/${newcomer}.aiida`), at(held, `/d/${held}.aiida`)],
      ]) {
        const { kept, refused } = assignNames(found, served, [], reserved);
        expect(kept.map((s) => s.name)).toEqual([held]);
        expect(refused).toHaveLength(1);
        expect(refused[0]).toContain(`/d/${newcomer}.aiida`);
        expect(refused[0]).toContain(`/d/${held}.aiida`);
      }
      const freed = assignNames([at(newcomer, `/d/${newcomer}.aiida`)], served, [], reserved);
      expect(freed.kept.map((s) => s.name)).toEqual([newcomer]);
    });
  }

  it('through the portal: the newcomer is warned about once, the served source untouched', async () => {
    const folder = tempDir('quarry-names-');
    writeFileSync(join(folder, 'rich.aiida'), 'x');
    const catalog = new SourceCatalog<PortalSpec>(() => Promise.reject(new Error('not opened here')));
    const lines: string[] = [];
    const portal = new Portal(catalog, { folders: [folder], reserved, taken: [], log: (l) => lines.push(l) });
    await portal.start();
    writeFileSync(join(folder, 'RICH.aiida'), 'xy');
    portal.rescan();
    portal.rescan();
    expect(catalog.names()).toEqual(['rich']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/RICH\.aiida: the name "RICH" is served from .*rich\.aiida; not served/);
    rmSync(join(folder, 'rich.aiida'));
    portal.rescan();
    expect(catalog.names()).toEqual(['RICH']);
    await catalog.close();
  });
});

describe('a folder scan that fails', () => {
  it('changes nothing in the catalog and is said in one line while it lasts', async () => {
    const root = tempDir('quarry-scan-');
    const folder = join(root, 'archives');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.aiida'), 'x');
    writeFileSync(join(folder, 'b.aiida'), 'x');
    const catalog = new SourceCatalog<PortalSpec>(() => Promise.reject(new Error('not opened here')));
    const lines: string[] = [];
    const portal = new Portal(catalog, {
      folders: [folder],
      reserved: reservedNames('/api/v4'),
      taken: [],
      log: (l) => lines.push(l),
    });
    await portal.start();
    // The folder cannot be read (here: a file stands in its place; out of open files reads the same).
    renameSync(folder, `${folder}.moved`);
    writeFileSync(folder, 'not a folder');
    expect(() => scanFolders([folder])).toThrow(FolderScanError);
    portal.rescan();
    portal.rescan();
    expect(catalog.names()).toEqual(['a', 'b']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/archives cannot be read .*; the sources stay as they were/);
    rmSync(folder);
    renameSync(`${folder}.moved`, folder);
    portal.rescan();
    expect(catalog.names()).toEqual(['a', 'b']);
    await catalog.close();
  });
});

describe('a sources file that is not a file of sources', () => {
  const dir = tempDir('quarry-hostile-sources-');
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    // The archives the files name are there: a missing one is refused first.
    for (const archive of ['a.aiida', 'b.aiida']) writeFileSync(join(dir, archive), '');
    return path;
  };

  const refusals: [string, () => string, RegExp][] = [
    [
      'a FIFO',
      () => {
        const path = join(dir, 'fifo.yaml');
        execFileSync('mkfifo', [path]);
        return path;
      },
      /is a FIFO, not a regular file/,
    ],
    [
      '/dev/zero',
      () => {
        const path = join(dir, 'zero.yaml');
        symlinkSync('/dev/zero', path);
        return path;
      },
      /is a device or socket, not a regular file/,
    ],
    ['a folder', () => tempDir('quarry-sources-dir-'), /is a folder, not a regular file/],
    [
      'a file past 16 MB',
      () => {
        const path = file('huge.yaml', 'sources:\n');
        truncateSync(path, 17 << 20);
        return path;
      },
      /is 17\.0 MB or more; a sources file is at most 16 MB/,
    ],
    [
      'query_timeout .inf',
      () => file('inf.yaml', 'sources:\n  - archive: a.aiida\n    query_timeout: .inf\n'),
      /source 1: query_timeout must be .* at most 86400 \(found Infinity\)/,
    ],
    [
      'query_timeout 1e308',
      () => file('big.yaml', 'sources:\n  - archive: a.aiida\n    query_timeout: 1e308\n'),
      /source 1: query_timeout must be/,
    ],
    [
      'a negative query_timeout',
      () => file('neg.yaml', 'sources:\n  - archive: a.aiida\n    query_timeout: -5\n'),
      /source 1: query_timeout must be/,
    ],
    [
      'a name of 10 MB',
      () =>
        file(
          'name.yaml',
          `sources:\n  - archive: a.aiida\n  - archive: b.aiida\n    name: ${'n'.repeat(10 << 20)}\n`,
        ),
      /source 2: name is 10485760 characters long \("n{40}…"\); at most 100/,
    ],
  ];

  for (const [what, make, message] of refusals) {
    it(`refuses ${what} in one short line, at once`, async () => {
      const path = make();
      const started = Date.now();
      for (const read of [
        () => Promise.resolve().then(() => readSourcesFile(path)),
        () => loadSourcesFile(path),
      ]) {
        const error = (await read().catch((e: unknown) => e)) as Error;
        expect(error.name).toBe('SourcesFileError');
        expect(error.message).toMatch(message);
        expect(error.message).not.toContain('\n');
        expect(error.message.length).toBeLessThan(400);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  }
});
