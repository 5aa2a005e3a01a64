import { it } from 'vitest';
import { openArchive } from '../src/storage/index.js';
import { tempDir } from './support/temp.js';
it('bench', async () => {
  const file = process.env.BENCH_FILE!;
  let peak = process.memoryUsage().rss;
  const base = peak;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const cpuAt: Record<string, number> = {};
  const steps: Record<string, number> = {};
  const b = await openArchive(file, { cacheDir: tempDir(), onExtractProgress: (s, d) => { if (steps[s] === undefined) { steps[s] = Math.round(performance.now() - t); const c = process.cpuUsage(cpu0); cpuAt[s] = Math.round((c.user + c.system) / 1000); } void d; } });
  const ms = performance.now() - t;
  clearInterval(timer);
  const n = await b.db.all({ sql: 'select count(*) as n from db_dbnode', params: [] });
  console.log(JSON.stringify({ file, ms: Math.round(ms), baseMB: Math.round(base / 1e6), peakMB: Math.round(peak / 1e6), n, steps, cpuAt, cpuTotal: Math.round((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000) }));
  await b.close();
}, 600000);
