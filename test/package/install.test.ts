/**
 * The package as a user gets it: `npm pack` of this checkout, installed into an empty folder with
 * `npm install ./quarry-*.tgz`, then `quarry serve` of the rich archive from there, explorer included. Run by
 * `npm run test:pack` (CI runs it): it needs the npm registry (or npm's cache) and takes minutes, so it is not
 * part of `npm test`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from '../conformance/corpus.js';
import { httpGet } from '../support/http-get.js';
import { serveProcesses, type Serving } from '../support/serving.js';
import { tempDir } from '../support/temp.js';

const repository = join(import.meta.dirname, '../..');
/** npm, run without blocking: a test worker whose event loop stalls for minutes loses touch with vitest. */
const npm = (args: string[], cwd: string) =>
  promisify(execFile)('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });

describe('the npm package', () => {
  let installed = '';
  let serving: Serving | undefined;
  let installLog = '';

  beforeAll(async () => {
    const packed = tempDir('quarry-pack-');
    await npm(['pack', '--pack-destination', packed, '--silent'], repository);
    const [tarball] = readdirSync(packed).filter((name) => /^quarry-.*\.tgz$/.test(name));
    expect(tarball, 'npm pack wrote no quarry-*.tgz').toBeDefined();
    installed = tempDir('quarry-install-');
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'user', private: true }));
    // As the README says: better-sqlite3's installer compiles it instead of asking GitHub for a binary.
    writeFileSync(join(installed, '.prebuild-installrc'), 'buildFromSource=true\n');
    const install = await npm(
      [
        'install',
        join(packed, tarball!),
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--foreground-scripts',
        // prebuild-install says what it did (or fetched) at npm's level of "info".
        '--loglevel',
        'info',
      ],
      installed,
    );
    installLog = install.stdout + install.stderr;
  }, 900_000);

  it('installs on this Node without engine warnings, and nothing that calls out at install', () => {
    const engines = installLog
      .split('\n')
      .filter((line) => /EBADENGINE/.test(line) && /package: /.test(line));
    expect(engines).toEqual([]);
    // @scarf/scarf (once swagger-ui-dist's) sends install-time analytics.
    expect(existsSync(join(installed, 'node_modules/@scarf'))).toBe(false);
    // better-sqlite3 is compiled here, its prebuilt binary never asked for.
    expect(installLog).toMatch(
      /prebuild-install info install --build-from-source specified, not attempting download/,
    );
    expect(installLog).not.toMatch(/prebuild-install (?:http|info looking for|WARN install)/);
    expect(existsSync(join(installed, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(
      true,
    );
  });

  afterAll(async () => {
    if (serving && serving.server.exitCode === null) {
      serving.server.kill('SIGTERM');
      await new Promise((resolve) => serving!.server.once('exit', resolve));
    }
  });

  it('has built its SQLite extensions at install (statements stopped in the serving thread, memory given back)', () => {
    for (const name of ['statement-deadline', 'http-date', 'memory-trim'])
      expect(existsSync(join(installed, `node_modules/quarry/build/${name}.so`)), name).toBe(true);
  });

  it('says its version', () => {
    const version = (
      JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8')) as { version: string }
    ).version;
    const said = execFileSync(join(installed, 'node_modules/.bin/quarry'), ['--version'], {
      encoding: 'utf8',
    });
    expect(said.trim()).toBe(version);
  });

  it('serves an archive, the API and the explorer, with no TypeScript build at install', async () => {
    const entry = join(installed, 'node_modules/quarry/dist/cli/main.js');
    serving = await serveProcesses(richFile('rich.aiida'), 1, [], entry);
    const api = await httpGet(serving.port, '/api/v4/nodes/?limit=1');
    expect(api.status).toBe(200);
    expect(Number(api.headers['x-total-count'])).toBe(2319);
    const page = await httpGet(serving.port, '/', { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('<script');
    const stopped = new Promise<number | null>((resolve) =>
      serving!.server.once('exit', (code) => resolve(code)),
    );
    serving.server.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });
});
