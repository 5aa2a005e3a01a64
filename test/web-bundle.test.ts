/**
 * The explorer's first view stays light: the JavaScript its page loads before anything else (the entry script
 * and what it preloads) is under 30 kB gzipped; heavy viewers (cytoscape, 3Dmol, moyo) are chunks of their own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot } from './e2e/support.js';

describe('the built explorer', () => {
  it("the first view's JavaScript is under 30 kB gzipped, without the heavy viewers", () => {
    ensureBuilt();
    const dir = join(repoRoot, 'dist/web');
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    const scripts = [...page.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const file of scripts) {
      const text = readFileSync(join(dir, file));
      gzipped += gzipSync(text, { level: 9 }).length;
      expect(text.toString('utf8'), file).not.toMatch(/cytoscape|3Dmol|moyo_wasm_bg/);
    }
    expect(gzipped).toBeLessThan(30 * 1024);
  });
});
