/**
 * The fuzz suite: thousands of generated requests (seeded, so every run sends the same ones) against each
 * storage backend, none of which may be answered with a 500, a crash or no answer at all. The backends: the
 * rich archive, the same data as a core.sqlite_dos folder, and as a
 * PostgreSQL profile (skipped when PostgreSQL is not installed, unless QUARRY_REQUIRE_POSTGRES is set).
 *
 * QUARRY_FUZZ_CASES sets the requests per backend (default 1500), QUARRY_FUZZ_SEED the seed, and
 * QUARRY_FUZZ_BUDGET the seconds one backend may take (default 60; longer runs raise it with the cases).
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { openPostgresUrl, openSqliteDos } from '../src/storage/profiles.js';
import { FIXTURES_DIR, richFile } from './conformance/corpus.js';
import { collectCorpus, describeFailure, runFuzz, summary } from './fuzz/runner.js';
import { sqliteDosFolder, unpackContainer } from './support/profile-fixtures.js';
import { tempDir } from './support/temp.js';

const CASES = Number(process.env.QUARRY_FUZZ_CASES ?? 1500);
const SEED = Number(process.env.QUARRY_FUZZ_SEED ?? 20_241_115);
const BUDGET_MS = 1000 * Number(process.env.QUARRY_FUZZ_BUDGET ?? Math.max(60, CASES / 15));
/** Short, so that the heaviest generated queries end in a 503 quickly instead of holding the run. */
const QUERY_TIMEOUT_MS = 1500;
const CASE_TIMEOUT_MS = 15_000;

const temp = () => tempDir('quarry-fuzz-');
const rich = richFile('rich.aiida');
const packed = richFile('rich-container-packed.tar.gz');
const loose = richFile('rich-container-loose.tar.gz');
const dump = richFile('rich-psql.sql.gz');

const open: { label: string; skip: boolean; open: () => Promise<StorageBackend> }[] = [
  {
    label: 'rich.aiida',
    skip: false,
    open: async () =>
      openArchive(rich, {
        cacheDir: temp(),
        queryTimeoutMs: QUERY_TIMEOUT_MS,
      }),
  },
  {
    label: 'rich as core.sqlite_dos',
    skip: false,
    open: async () =>
      openSqliteDos(await sqliteDosFolder(rich, packed, temp()), {
        name: 'rich',
        queryTimeoutMs: QUERY_TIMEOUT_MS,
      }),
  },
  {
    label: 'rich as core.psql_dos',
    skip: !withPostgres,
    open: async () => {
      cluster = await startCluster();
      cluster.restore('rich', dump);
      const repository = await unpackContainer(loose, temp());
      return openPostgresUrl(cluster.url('rich'), repository, {
        name: 'rich',
        queryTimeoutMs: QUERY_TIMEOUT_MS,
      });
    },
  },
];

let cluster: Cluster | undefined;
const opened: { app: FastifyInstance; backend: StorageBackend }[] = [];

afterAll(async () => {
  for (const { app, backend } of opened) {
    await app.close();
    await backend.close();
  }
  cluster?.destroy();
});

describe('fuzz: no input gets a 500, a crash or no answer', () => {
  open.forEach((backend, i) => {
    it.skipIf(backend.skip)(
      backend.label,
      async () => {
        const storage = await backend.open();
        const app = await buildApp({ backends: [storage], queryTimeoutMs: QUERY_TIMEOUT_MS });
        opened.push({ app, backend: storage });
        const corpus = await collectCorpus(app, join(FIXTURES_DIR, 'requests', 'rich.jsonl.gz'));
        const seed = SEED + i;
        const report = await runFuzz(app, corpus, {
          label: backend.label,
          seed,
          cases: CASES,
          budgetMs: BUDGET_MS,
          caseTimeoutMs: CASE_TIMEOUT_MS,
        });
        console.log(summary(report));
        expect(report.failures.map((f) => describeFailure(f, seed)).slice(0, 10)).toEqual([]);
        // A run cut short by the time budget still fuzzes; one that sent almost nothing does not.
        expect(report.ran).toBeGreaterThan(Math.min(CASES, 200));
      },
      BUDGET_MS + 120_000,
    );
  });
});
