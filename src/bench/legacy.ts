/**
 * `npm run bench -- --legacy 1e4,1e5,1e6`: the conversion of legacy archives (export version 0.13, the JSON
 * format of AiiDA 1.x) at each size, opened as `quarry prepare` opens an archive, beside its floor: the
 * extraction of a main_0001 archive of the same generated graph, in the same run. Every step runs in a
 * process of its own (legacy-step.ts), so each peak RSS is that step's alone; the writes are timed too. The
 * archives are kept in the cache folder's bench/ (delete it to write them anew).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { loadAverage } from './process-table.js';

const stepScript = fileURLToPath(new URL('./legacy-step.js', import.meta.url));

interface StepResult {
  ms?: number;
  maxRss?: number;
  error?: string;
}

function runStep(args: string[]): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [stepScript, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as StepResult);
      } catch {
        reject(new Error(`bench step ${args.join(' ')} exited with ${code} without a result`));
      }
    });
  });
}

/** The archive `file`, written by the step (under a temporary name, then renamed) unless it is there already. */
async function written(file: string, step: string[]): Promise<StepResult & { kept?: boolean }> {
  if (existsSync(file)) return { kept: true };
  const temp = `${file}.${process.pid}.tmp`;
  const [what, ...rest] = step;
  const result = await runStep([what!, rest[0]!, temp, ...rest.slice(1)]);
  if (!result.error) renameSync(temp, file);
  else rmSync(temp, { force: true });
  return result;
}

const seconds = (r: StepResult) => (r.ms === undefined ? '-' : (r.ms / 1000).toFixed(1));
const mb = (r: StepResult) => (r.maxRss === undefined ? '-' : String(Math.round(r.maxRss / 1e6)));
const times = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '-' : `${(a / b).toFixed(2)}x`;

function markdown(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n') + '\n';
}

export interface LegacyBenchOptions {
  sizes: number[];
  out: string;
  version?: string;
}

export async function legacyBench(options: LegacyBenchOptions): Promise<void> {
  const version = options.version ?? '0.13';
  const loadStart = loadAverage();
  const results = [];
  // The archives are written once (minutes at 10^6 nodes) and kept in the cache folder for later runs.
  const kept = join(defaultCacheDir(), 'bench');
  mkdirSync(kept, { recursive: true });
  for (const nodes of options.sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-legacy-'));
    try {
      const legacyFile = join(kept, `legacy-${version}-${nodes}-seed1.aiida`);
      const mainFile = join(kept, `main_0001-${nodes}-seed1.aiida`);
      process.stderr.write(`legacy bench: ${nodes} nodes: export version ${version} (${legacyFile})\n`);
      const writeLegacy = await written(legacyFile, ['write-legacy', String(nodes), version]);
      process.stderr.write(`legacy bench: ${nodes} nodes: main_0001 (${mainFile})\n`);
      const writeMain = await written(mainFile, ['write-main', String(nodes)]);
      if (writeLegacy.error || writeMain.error) throw new Error(writeLegacy.error ?? writeMain.error);
      process.stderr.write(`legacy bench: ${nodes} nodes: converting, then extracting the floor\n`);
      const convert = await runStep(['open', legacyFile, join(dir, 'cache-legacy')]);
      const extract = await runStep(['open', mainFile, join(dir, 'cache-main')]);
      if (convert.error)
        process.stderr.write(`legacy bench: the ${version} archive was refused: ${convert.error}\n`);
      results.push({
        nodes,
        legacyBytes: statSync(legacyFile).size,
        mainBytes: statSync(mainFile).size,
        writeLegacy,
        writeMain,
        convert,
        extract,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const loadEnd = loadAverage();
  const write = (r: StepResult & { kept?: boolean }) =>
    r.kept ? 'kept from an earlier run' : `${seconds(r)} s / ${mb(r)} MB`;
  const rows = results.map((r) => [
    String(r.nodes),
    write(r.writeLegacy),
    write(r.writeMain),
    r.convert.error ? 'refused (the message is above)' : `${seconds(r.convert)} s / ${mb(r.convert)} MB`,
    `${seconds(r.extract)} s / ${mb(r.extract)} MB`,
    times(r.convert.ms, r.extract.ms),
    times(r.convert.maxRss, r.extract.maxRss),
  ]);
  const table = markdown(
    [
      'nodes',
      `write ${version} (time / peak RSS)`,
      'write main_0001',
      `convert ${version} (as quarry prepare)`,
      'floor: extract main_0001',
      'time ratio',
      'RSS ratio',
    ],
    rows,
  );
  process.stdout.write(
    `${table}\nload average at start ${loadStart.join(' ')}, at end ${loadEnd.join(' ')}\n`,
  );
  writeFileSync(options.out, JSON.stringify({ version, loadStart, loadEnd, results }, null, 2));
}
