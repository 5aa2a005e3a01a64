/**
 * The conformance replay: every recorded request of the corpus (test/conformance/corpus.ts) against Quarry serving the same
 * data, on every storage backend (one matrix): the archives themselves; the rich data as a core.sqlite_dos
 * folder (the archive's database beside the profile's disk-objectstore container); and the PostgreSQL
 * profile restored from its dump into a throw-away cluster, judged against the answers the reference gave
 * from that profile. Endpoints in scope must agree (or differ only as docs/compatibility.md says).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { openPostgresUrl, openSqliteDos } from '../src/storage/profiles.js';
import { richFile } from './conformance/corpus.js';
import { ARCHIVES, loadArchiveCase, replayArchive, type Verdict } from './conformance/replay.js';
import { sqliteDosFolder, unpackContainer } from './support/profile-fixtures.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { tempDir } from './support/temp.js';

type Case = {
  label: string;
  data: NonNullable<ReturnType<typeof loadArchiveCase>>;
  open: () => Promise<StorageBackend>;
};

const temp = () => tempDir('quarry-conf-');
const rich = loadArchiveCase('rich');
const richPsql = loadArchiveCase('rich', 'psql');
if (!rich || !richPsql)
  throw new Error('the rich conformance fixtures are missing from test/fixtures/conformance');
let cluster: Cluster | undefined;

const cases: Case[] = [];
for (const name of ARCHIVES) {
  const data = loadArchiveCase(name);
  if (data) cases.push({ label: name, data, open: () => openArchive(data.archive, { cacheDir: temp() }) });
}
{
  cases.push({
    label: 'rich as core.sqlite_dos',
    data: rich,
    open: async () =>
      openSqliteDos(await sqliteDosFolder(rich.archive, richFile('rich-container-packed.tar.gz'), temp()), {
        name: 'rich',
      }),
  });
}
if (withPostgres) {
  cases.push({
    label: 'rich as core.psql_dos',
    data: richPsql,
    open: async () => {
      cluster = await startCluster();
      if (!cluster)
        throw new Error('PostgreSQL is not installed; .ci/run installs it (apt-get install postgresql)');
      cluster.restore('rich', richFile('rich-psql.sql.gz'));
      const repository = await unpackContainer(richFile('rich-container-loose.tar.gz'), temp());
      return openPostgresUrl(cluster.url('rich'), repository, { name: 'rich' });
    },
  });
}

function table(name: string, verdicts: Verdict[]): string {
  const rows = new Map<string, { agree: number; differ: number; later: number }>();
  for (const v of verdicts) {
    const row = rows.get(v.endpoint) ?? { agree: 0, differ: 0, later: 0 };
    row[v.agree ? 'agree' : v.inScope ? 'differ' : 'later'] += 1;
    rows.set(v.endpoint, row);
  }
  const lines = [...rows]
    .sort()
    .map(
      ([e, r]) =>
        `  ${e.padEnd(42)} ${String(r.agree).padStart(5)} ${String(r.differ).padStart(6)} ${String(r.later).padStart(6)}`,
    );
  const agree = verdicts.filter((v) => v.agree).length;
  return [
    `conformance ${name}: ${agree}/${verdicts.length} agree (in scope: ${verdicts.filter((v) => v.inScope && v.agree).length}/${verdicts.filter((v) => v.inScope).length})`,
    `  ${'endpoint'.padEnd(42)} ${'agree'.padStart(5)} ${'differ'.padStart(6)} ${'later'.padStart(6)}`,
    ...lines,
  ].join('\n');
}

describe.skipIf(cases.length === 0)('conformance replay', () => {
  const report: Record<string, Verdict[]> = {};
  // Every verdict, for reading after the run: in the project's test-results/ (where CI keeps its results), not
  // in the machine's temporary directory, which the suite leaves as it found it.
  const reportFile = join(import.meta.dirname, '../test-results/conformance.json');
  afterAll(() => cluster?.destroy());
  for (const { label, data, open } of cases) {
    it(`agrees with the reference on ${label}`, { timeout: 120_000 }, async () => {
      const backend = await open();
      const app = await buildApp({ backends: [backend] });
      try {
        const verdicts = await replayArchive(app, data);
        report[label] = verdicts;
        console.log(table(label, verdicts));
        mkdirSync(join(reportFile, '..'), { recursive: true });
        writeFileSync(reportFile, JSON.stringify(report, null, 1));
        const failures = verdicts.filter((v) => v.inScope && !v.agree);
        expect(failures.map((f) => `${f.id} [${f.endpoint}]: ${f.problem}`)).toEqual([]);
      } finally {
        await app.close();
        await backend.close();
      }
    });
  }
});
