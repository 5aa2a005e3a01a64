/**
 * Archives on a read-only file system (aiida-core #6973: a dataset mounted read-only from an object store or a
 * shared disk) are served and prepared: everything Quarry writes goes to its cache folder, nothing beside the
 * archive. The folder is a read-only bind mount, which needs the right to mount (root in a container, as CI
 * has); without it the test is skipped with one line.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from './conformance/corpus.js';
import { tempDir } from './helpers.js';
import { cli, serveProcesses, type Serving } from './support/serving.js';

const UPF = 'f5af8545-4c5b-4ee4-9cc2-fca00fe78cf5';
const UPF_FILE = 'Ba.pbesol-spn-rrkjus_psl.0.2.3-tot-pslib030.UPF';

let mounted: string | undefined;
let whyNot: string | undefined;
const servers: Serving[] = [];

beforeAll(() => {
  const source = tempDir('quarry-ro-source-');
  copyFileSync(richFile('rich.aiida'), join(source, 'rich.aiida'));
  const target = tempDir('quarry-ro-');
  const bind = spawnSync('mount', ['--bind', source, target], { encoding: 'utf8' });
  if (bind.status !== 0) {
    whyNot = `read-only archives: skipped, this user cannot mount (${(bind.stderr || bind.error?.message || '').trim()})`;
    process.stderr.write(`${whyNot}\n`);
    return;
  }
  mounted = target;
  const ro = spawnSync('mount', ['-o', 'remount,bind,ro', target], { encoding: 'utf8' });
  if (ro.status !== 0) throw new Error(`cannot make ${target} read-only: ${ro.stderr}`);
});

afterAll(() => {
  for (const s of servers) s.server.kill('SIGKILL');
  // Before the suite removes the folders: a mount left behind would keep them.
  if (mounted !== undefined) spawnSync('umount', ['-l', mounted]);
});

describe.skipIf(!existsSync(cli))('archives on a read-only file system', () => {
  it('is a read-only mount', (ctx) => {
    if (mounted === undefined) return ctx.skip();
    expect(() => writeFileSync(join(mounted!, 'probe'), 'x')).toThrow(/EROFS|read-only/);
  });

  it('serves a folder of them, database and repository files, writing only to the cache folder', async (ctx) => {
    if (mounted === undefined) return ctx.skip();
    const before = readdirSync(mounted);
    const serving = await serveProcesses(mounted, 1);
    servers.push(serving);
    const base = `http://127.0.0.1:${serving.port}/rich/api/v4`;
    const nodes = await fetch(`${base}/nodes/?limit=3`);
    expect(nodes.status).toBe(200);
    expect(nodes.headers.get('x-total-count')).toBe('2319');
    const file = await fetch(`${base}/nodes/${UPF}/repo/contents?filename="${UPF_FILE}"`);
    expect(file.status).toBe(200);
    expect(await file.text()).toMatch(/^<UPF version="2\.0\.1">/);
    expect(readdirSync(mounted)).toEqual(before);
  });

  it('prepares them ahead into the cache folder', (ctx) => {
    if (mounted === undefined) return ctx.skip();
    const cacheDir = tempDir('quarry-ro-cache-');
    mkdirSync(cacheDir, { recursive: true });
    const prepared = spawnSync(process.execPath, [cli, 'prepare', mounted!, '--cache-dir', cacheDir], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(prepared.status, prepared.stderr).toBe(0);
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
    expect(readdirSync(mounted!)).toEqual(['rich.aiida']);
  });
});
