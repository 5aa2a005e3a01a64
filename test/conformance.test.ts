/**
 * The conformance replay: every recorded request of ../shared/conformance against Quarry serving the same
 * archive. Endpoints in scope must agree with the reference (or differ only as docs/compatibility.md says).
 */
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import { openArchive } from '../src/storage/index.js';
import {
  ARCHIVES,
  conformanceDir,
  loadArchiveCase,
  replayArchive,
  type Verdict,
} from './conformance/replay.js';

const cases = ARCHIVES.map((name) => ({ name, data: loadArchiveCase(name) }));
const available = cases.filter((c) => c.data !== undefined);
if (available.length === 0) {
  console.log(
    `conformance replay skipped: no recorded answers at ${conformanceDir()} (set QUARRY_CONFORMANCE_DIR)`,
  );
}

function table(name: string, verdicts: Verdict[]): string {
  const rows = new Map<string, { agree: number; differ: number; later: number }>();
  for (const v of verdicts) {
    const row = rows.get(v.endpoint) ?? { agree: 0, differ: 0, later: 0 };
    if (!v.inScope) row[v.agree ? 'agree' : 'later'] += v.agree ? 1 : 1;
    else row[v.agree ? 'agree' : 'differ'] += 1;
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

describe.skipIf(available.length === 0)('conformance replay', () => {
  const report: Record<string, Verdict[]> = {};
  for (const { name, data } of available) {
    it(`agrees with the reference on ${name}`, async () => {
      const backend = await openArchive(data!.archive, {
        cacheDir: mkdtempSync(join(tmpdir(), 'quarry-conf-')),
      });
      const app = await buildApp({ backends: [backend] });
      try {
        const verdicts = await replayArchive(app, data!);
        report[name] = verdicts;
        console.log(table(name, verdicts));
        writeFileSync('/tmp/quarry-conformance.json', JSON.stringify(report, null, 1));
        const failures = verdicts.filter((v) => v.inScope && !v.agree);
        expect(failures.map((f) => `${f.id} [${f.endpoint}]: ${f.problem}`)).toEqual([]);
      } finally {
        await app.close();
        await backend.close();
      }
    });
  }
});
