import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli/errors.js';
import { runServe } from '../src/cli/serve.js';
import { tempDir } from './helpers.js';

const cli = join(import.meta.dirname, '../dist/cli/main.js');

describe('quarry serve', () => {
  it('refuses a file that is not an archive with a one-line CliError', async () => {
    const junk = join(tempDir(), 'notes.aiida');
    writeFileSync(junk, 'just text');
    const options = { host: '127.0.0.1', port: 0, prefix: '/api/v4', posting: true, cacheDir: tempDir() };
    await expect(runServe([junk], options)).rejects.toBeInstanceOf(CliError);
    await expect(runServe([junk], options)).rejects.toThrow(/^[^\n]*not a zip[^\n]*$/);
  });

  it.skipIf(!existsSync(cli))('exits non-zero without a stack trace (built CLI)', () => {
    const junk = join(tempDir(), 'old.aiida');
    writeFileSync(junk, Buffer.alloc(100));
    const run = spawnSync(process.execPath, [cli, 'serve', junk, '--port', '0'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^quarry: .*old\.aiida/);
  });
});

describe('quarry serve, live profiles', () => {
  const options = { host: '127.0.0.1', port: 0, prefix: '/api/v4', posting: true, cacheDir: tempDir() };

  it('asks for the repository of a postgres:// source', async () => {
    await expect(runServe(['postgres://aiida@127.0.0.1:1/db'], options)).rejects.toThrow(/--repository/);
  });

  it('refuses a folder that is not a core.sqlite_dos storage', async () => {
    await expect(runServe([tempDir()], options)).rejects.toThrow(/not a core.sqlite_dos storage folder/);
  });

  it('names the profiles of the configuration when the asked one is missing', async () => {
    const aiida = tempDir();
    mkdirSync(join(aiida, '.aiida'));
    writeFileSync(join(aiida, '.aiida', 'config.json'), JSON.stringify({ profiles: { main: {}, test: {} } }));
    process.env.AIIDA_PATH = aiida;
    try {
      await expect(runServe([], { ...options, profile: ['other'] })).rejects.toThrow(/profiles: main, test/);
    } finally {
      delete process.env.AIIDA_PATH;
    }
  });
});
