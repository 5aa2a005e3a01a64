/** The child of openAlone() (open-alone.ts): opens the archive given, prints what it cost. */
import { openArchive } from '../../src/storage/index.js';

const [file, cacheDir] = process.argv.slice(2);
const before = process.resourceUsage().maxRSS * 1024;
const started = performance.now();
let message = 'served';
const warnings: string[] = [];
try {
  const backend = await openArchive(file!, {
    cacheDir: cacheDir!,
    onWarning: (l: string) => warnings.push(l),
  });
  await backend.close();
} catch (error) {
  message = (error as Error).message;
}
const ms = Math.round(performance.now() - started);
process.stdout.write(
  `${JSON.stringify({ ms, before, peak: process.resourceUsage().maxRSS * 1024, message, warnings })}\n`,
);
