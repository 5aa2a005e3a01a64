/**
 * Quarry serving the benchmark's storage on a free loopback port: `serve-bench PROCESSES FILE [POSTGRES_URL]`,
 * on as many processes as `quarry serve --processes`, supervised the same way.
 */
import { isServingProcess, reportServing, superviseProcesses } from '../cli/processes.js';
import { buildApp } from '../server/app.js';
import { warmUp } from '../ops/warm-up.js';
import { collectWhenQuiet } from '../util/idle-memory.js';
import { trimHeap } from '../storage/sqlite-extensions.js';
import { BENCH_KEPT_FILE, BENCH_KEPT_GETS, BENCH_METRICS, benchBackend } from './backend.js';

const [processes, file, pgUrl] = process.argv.slice(2);
if (!file || !Number.isInteger(Number(processes))) {
  throw new Error('usage: serve-bench PROCESSES FILE.aiida [POSTGRES_URL]');
}
if (Number(processes) > 1 && !isServingProcess()) {
  process.stdout.write(`ready ${(await superviseProcesses(Number(processes))).port}\n`);
} else {
  const backend = await benchBackend(file, pgUrl);
  // `npm run bench -- --metrics` measures the cost of counting every request (src/ops/metrics.ts).
  // As `quarry serve` does: whole answers kept once for the machine, in a file all serving processes open.
  const keptFile = process.env[BENCH_KEPT_FILE];
  const app = await buildApp({
    backends: [backend],
    metrics: process.env[BENCH_METRICS] === '1',
    ...(keptFile ? { keptAnswers: { file: keptFile, bytes: 256 * 1024 * 1024 } } : {}),
    // `npm run bench -- --first-page`: a page asked again is read again, as when its answer is not kept.
    ...(process.env[BENCH_KEPT_GETS] === '0' ? { keptAnswers: false as const } : {}),
  });
  // As `quarry serve` does: a live database's summaries are computed ahead, and /readyz waits for them.
  await warmUp([backend], 600_000, (_backend, error) =>
    process.stderr.write(`warm-up failed: ${error.message}\n`),
  );
  // As `quarry serve` does: the memory of a load is given back once the process is quiet.
  collectWhenQuiet(undefined, undefined, trimHeap);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (isServingProcess()) reportServing([backend.name]);
  else process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
  // A normal exit on a signal, so that profilers (node --cpu-prof) write their output.
  process.once('SIGINT', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
}
