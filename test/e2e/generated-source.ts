/**
 * A generated archive for the browser tests: 10^5 nodes (seed 1), where lists outgrow a page, a code has thousands
 * of users and the chemistry filters find more structures than one request takes. It is written once per test
 * file (about 8 s, 20 s on a loaded 2-core machine) into the file's temporary folder, which goes with it.
 */
import { join } from 'node:path';
import { generateArchive } from '../../src/generate/index.js';
import { tempDir } from '../helpers.js';

export const GENERATED_NODES = 100_000;

const written = new Map<number, Promise<string>>();

/** The path of the generated archive of `nodes` nodes, written at the first call of the test file. */
export function generatedArchive(nodes = GENERATED_NODES): Promise<string> {
  let file = written.get(nodes);
  if (file === undefined) {
    const out = join(tempDir(), `generated-${nodes}.aiida`);
    file = generateArchive({ nodes, out, seed: 1 }).then(() => out);
    written.set(nodes, file);
  }
  return file;
}
