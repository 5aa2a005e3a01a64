/** `quarry generate`: write a synthetic archive, with its progress shown (src/cli/progress.ts). */
import { generateArchive } from '../generate/index.js';
import { generateLegacyArchive, type LegacyVersion } from '../generate/legacy/index.js';
import { CliError } from './errors.js';
import { progressDisplay } from './progress.js';

export interface GenerateCliOptions {
  nodes: number;
  out: string;
  seed: number;
  /** A legacy export version (0.1 ... 0.13): the JSON format of AiiDA 0.x and 1.x instead of main_0001. */
  exportVersion?: LegacyVersion;
  format?: 'zip' | 'tar.gz';
}

export async function runGenerate(options: GenerateCliOptions): Promise<void> {
  if (options.format === 'tar.gz' && options.exportVersion === undefined)
    throw new CliError(
      '--format tar.gz is for legacy archives: give --export-version too (main_0001 is a zip)',
    );
  const started = Date.now();
  // Shown from the start: generating is the whole command.
  const display = progressDisplay(`generating ${options.out}`, 'nodes', { showAfterMs: 0 });
  if (options.exportVersion !== undefined) {
    let phase = 'generating';
    await generateLegacyArchive({
      nodes: options.nodes,
      out: options.out,
      seed: options.seed,
      exportVersion: options.exportVersion,
      format: options.format,
      onProgress: (done, total, now) => {
        if (now !== phase) display.step(`writing export version ${options.exportVersion}`);
        phase = now;
        display.update(done, total);
      },
    });
  } else {
    await generateArchive({
      nodes: options.nodes,
      out: options.out,
      seed: options.seed,
      onProgress: (done, total) => {
        display.update(done, total);
        if (done === total) display.step('writing the zip');
      },
    });
  }
  display.stop();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const version = options.exportVersion ? `, export version ${options.exportVersion}` : '';
  process.stderr.write(`quarry: wrote ${options.out} (${options.nodes} nodes${version}) in ${seconds} s\n`);
}
