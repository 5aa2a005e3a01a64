/**
 * Where the conformance corpus lives. The rich data (an archive, its PostgreSQL dump and containers, the
 * recorded requests and the reference's answers, gzipped) is the project's own and sits in the repository, so
 * that every clone checks itself against aiida-core's answers. aiida-core's three test archives are not ours to
 * commit: they are read from ../shared/conformance where it exists (the project's CI machines) and their
 * replays are skipped elsewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository's fixtures: the rich data set. */
export const FIXTURES_DIR = resolve(here, '../fixtures/conformance');

/** aiida-core's own test archives and their recorded answers, outside the repository. */
export function sharedConformanceDir(): string {
  return process.env.QUARRY_CONFORMANCE_DIR ?? resolve(here, '../../../shared/conformance');
}

/** Data sets of the replay: the first is in the repository, the others only where ../shared exists. */
export const ARCHIVES = ['rich', 'arithmetic.add', 'export_main_0001_simple', 'graph1'];
export const SHARED_ARCHIVES = ARCHIVES.filter((name) => name !== 'rich');

/**
 * A file of the rich data set (`rich.aiida`, `rich-psql.sql.gz`, `rich-container-loose.tar.gz`, ...). It is
 * part of the repository: a missing one is an error, never a reason to skip.
 */
export function richFile(name: string): string {
  const file = join(FIXTURES_DIR, 'data', name);
  if (!existsSync(file)) throw new Error(`the repository's conformance fixture ${file} is missing`);
  return file;
}

/** An archive of aiida-core's test data, or undefined where ../shared/conformance is not beside the clone. */
export function sharedArchive(name: string): string | undefined {
  const file = join(sharedConformanceDir(), 'data', name);
  return existsSync(file) ? file : undefined;
}

/** Whether aiida-core's test archives are here; where not, one line says why their checks are skipped. */
export function sharedCorpusPresent(): boolean {
  return SHARED_ARCHIVES.every((name) => existsSync(join(sharedConformanceDir(), 'data', `${name}.aiida`)));
}

/** Said once per run (test/support/system-check.ts) where aiida-core's archives are not here. */
export function sharedSkipLine(): string | undefined {
  if (sharedCorpusPresent()) return undefined;
  return (
    `aiida-core's test archives (${SHARED_ARCHIVES.join(', ')}) are not at ${sharedConformanceDir()}: ` +
    'their checks are skipped (they are not ours to commit; set QUARRY_CONFORMANCE_DIR to run them)'
  );
}

export interface CaseFiles {
  archive: string;
  requests: string;
  golden: string;
  /** The reference's answers from the PostgreSQL profile of the same data, where recorded. */
  psqlGolden?: string;
}

/** The files of one data set of the replay; undefined for one of aiida-core's archives that is not here. */
export function caseFiles(name: string): CaseFiles | undefined {
  if (name === 'rich') {
    return {
      archive: richFile('rich.aiida'),
      requests: join(FIXTURES_DIR, 'requests', 'rich.jsonl.gz'),
      golden: join(FIXTURES_DIR, 'golden', 'rich.jsonl.gz'),
      psqlGolden: join(FIXTURES_DIR, 'golden', 'rich-psql.jsonl.gz'),
    };
  }
  const dir = sharedConformanceDir();
  const files = {
    archive: join(dir, 'data', `${name}.aiida`),
    requests: join(dir, 'requests', `${name}.jsonl`),
    golden: join(dir, 'golden', `${name}.jsonl`),
  };
  return Object.values(files).every(existsSync) ? files : undefined;
}

/** The non-empty lines of a JSON Lines file, gzipped or not. */
export function readLines(file: string): string[] {
  const raw = readFileSync(file);
  const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
  return text.split('\n').filter((line) => line.trim() !== '');
}

/**
 * The OPTIMADE specification's own filter examples, beside aiida-core's archives in ../shared (they are the
 * specification's, read there and never copied); undefined where they are not here.
 */
export function optimadeFilterExamples(): string | undefined {
  const dir = join(sharedConformanceDir(), '..', 'optimade', 'filters');
  return existsSync(dir) ? dir : undefined;
}
