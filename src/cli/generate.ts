/** `quarry generate`: write a synthetic archive, with its progress shown (src/cli/progress.ts). */
import { generateArchive } from '../generate/index.js';
import { progressDisplay } from './progress.js';

export async function runGenerate(options: { nodes: number; out: string; seed: number }): Promise<void> {
  const started = Date.now();
  // Shown from the start: generating is the whole command.
  const display = progressDisplay(`generating ${options.out}`, 'nodes', { showAfterMs: 0 });
  await generateArchive({
    nodes: options.nodes,
    out: options.out,
    seed: options.seed,
    onProgress: (done, total) => {
      display.update(done, total);
      if (done === total) display.step('writing the zip');
    },
  });
  display.stop();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`quarry: wrote ${options.out} (${options.nodes} nodes) in ${seconds} s\n`);
}
