/**
 * One step of the legacy bench (legacy.ts), in a process of its own so that its peak RSS is its own: write a
 * legacy or a main_0001 archive, or open an archive as `quarry prepare` does (its database extracted, or a
 * legacy archive converted, into a fresh cache folder). Prints one JSON line: wall ms and peak RSS bytes, or
 * the error that refused the archive.
 *
 *   node legacy-step.js write-legacy N OUT VERSION | write-main N OUT | open FILE CACHE_DIR
 */
import { generateArchive } from '../generate/index.js';
import { generateLegacyArchive, isLegacyVersion } from '../generate/legacy/index.js';
import { openArchive } from '../storage/index.js';

async function step(args: string[]): Promise<void> {
  const [what, a, b, c] = args;
  if (what === 'write-legacy' && a && b && c && isLegacyVersion(c))
    await generateLegacyArchive({ nodes: Number(a), out: b, exportVersion: c, seed: 1 });
  else if (what === 'write-main' && a && b) await generateArchive({ nodes: Number(a), out: b, seed: 1 });
  else if (what === 'open' && a && b) await (await openArchive(a, { cacheDir: b })).close();
  else
    throw new Error(
      `usage: legacy-step.js write-legacy N OUT VERSION | write-main N OUT | open FILE CACHE_DIR`,
    );
}

const started = performance.now();
step(process.argv.slice(2)).then(
  () => {
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ ms, maxRss: process.resourceUsage().maxRSS * 1024 })}\n`);
  },
  (error: unknown) => {
    process.stdout.write(
      `${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`,
    );
  },
);
