/**
 * aiida-core's legacy test archives (export versions 0.1-0.13) and what its `verdi archive migrate` made of
 * them, read from ../shared/legacy beside the clone (QUARRY_LEGACY_DIR elsewhere): they are aiida-core's
 * files, not ours to commit, so their tests are skipped, with one line, where they are absent.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function legacyDir(): string {
  return process.env.QUARRY_LEGACY_DIR ?? resolve(here, '../../../shared/legacy');
}

export function legacyPresent(): boolean {
  return existsSync(join(legacyDir(), 'export_0.13_simple.aiida'));
}

export function legacySkipLine(): string {
  return `aiida-core's legacy archives are not at ${legacyDir()}: their checks are skipped (set QUARRY_LEGACY_DIR to run them)`;
}

/** Every legacy archive of the corpus (file names), `empty.aiida` (not an archive) left out. */
export function legacyArchives(): string[] {
  if (!legacyPresent()) return [];
  return readdirSync(legacyDir())
    .filter((n) => /\.(aiida|tar\.gz)$/.test(n) && n !== 'empty.aiida')
    .sort();
}

/** The migrated copy of an archive, where aiida-core made one. */
export function migratedCopy(name: string): string | undefined {
  const file = join(legacyDir(), 'migrated', name.replace(/\.tar\.gz$/, '.tar.aiida'));
  return existsSync(file) ? file : undefined;
}
