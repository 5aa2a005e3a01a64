/** `quarry generate`: write a synthetic archive, with a progress bar on a terminal. */
import { generateArchive } from '../generate/index.js';

export async function runGenerate(options: { nodes: number; out: string; seed: number }): Promise<void> {
  const tty = process.stderr.isTTY;
  let lastShown = -1;
  const started = Date.now();
  await generateArchive({
    nodes: options.nodes,
    out: options.out,
    seed: options.seed,
    onProgress: (done, total) => {
      const percent = Math.floor((100 * done) / total);
      if (!tty || percent === lastShown) return;
      lastShown = percent;
      const width = 30;
      const filled = Math.round((width * percent) / 100);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${percent}% ${done}/${total} nodes`,
      );
    },
  });
  if (tty) process.stderr.write('\n');
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`quarry: wrote ${options.out} (${options.nodes} nodes) in ${seconds} s\n`);
}
