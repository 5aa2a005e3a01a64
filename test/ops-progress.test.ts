/**
 * Progress of long steps: the storage reports through a callback (no CLI code in it), the command draws a bar
 * on a terminal and a few plain lines elsewhere.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { extractionProgress, progressDisplay } from '../src/cli/progress.js';
import { openArchive } from '../src/storage/index.js';
import { smallArchive, tempDir } from './helpers.js';

function output() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('progress in plain lines (not a terminal)', () => {
  it('writes a line per tenth of the work, with rate and time left, and how long it all took', () => {
    const out = output();
    let now = 0;
    const display = progressDisplay('extracting big.aiida', 'bytes', {
      stream: out.stream,
      tty: false,
      now: () => now,
    });
    // 100 MB at 10 MB/s, reported every 0.1 s: 100 updates, eleven lines at most.
    for (let i = 1; i <= 100; i++) {
      now = i * 100;
      display.update(i * 1e6, 100e6);
    }
    display.stop();
    const lines = out.text().trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(8);
    expect(lines.length).toBeLessThanOrEqual(10);
    // Nothing in the first 2 s: quick steps print nothing.
    expect(lines[0]).toBe('quarry: extracting big.aiida: 20% (20 MB/100 MB, 10 MB/s, about 8.0 s left)');
    expect(lines.at(-2)).toBe('quarry: extracting big.aiida: 100% (100 MB/100 MB, 10 MB/s)');
    expect(lines.at(-1)).toBe('quarry: extracting big.aiida: done in 10 s');
  });

  it('writes a line at least every 10 s when the work is slow, and nothing for a step that ends quickly', () => {
    const out = output();
    let now = 0;
    const slow = progressDisplay('generating x.aiida', 'nodes', {
      stream: out.stream,
      tty: false,
      now: () => now,
    });
    for (let s = 3; s <= 33; s += 1) {
      now = s * 1000;
      slow.update(s, 1000);
    }
    expect(out.text().trim().split('\n')).toHaveLength(4);
    expect(out.text()).toMatch(
      /^quarry: generating x\.aiida: 0% \(3\/1000, 1\/s, about 16 min 37 s left\)$/m,
    );

    const quiet = output();
    const quick = progressDisplay('extracting small.aiida', 'bytes', { stream: quiet.stream, tty: false });
    quick.update(5, 10);
    quick.update(10, 10);
    quick.stop();
    expect(quiet.text()).toBe('');
  });

  it('draws a bar on a terminal: done/total, rate, time left', () => {
    const out = output();
    let now = 0;
    const display = progressDisplay('generating y.aiida', 'nodes', {
      stream: Object.assign(out.stream, {
        isTTY: true,
        cursorTo: () => true,
        clearLine: () => true,
        columns: 120,
      }),
      now: () => now,
      showAfterMs: 0,
    });
    now = 1000;
    display.update(250, 1000);
    display.stop();
    expect(out.text()).toMatch(
      /generating y\.aiida \[=+-+\] 25% \| 250\/1000 \| 250\/s \| about 3\.0 s left/,
    );
  });
});

describe('extraction of an archive database', () => {
  it('reports its steps through the storage callback, and the CLI turns them into lines', async () => {
    const archive = await smallArchive(300, 9);
    const steps: [string, number, number][] = [];
    const backend = await openArchive(archive, {
      cacheDir: tempDir(),
      onExtractProgress: (step, done, total) => steps.push([step, done, total]),
    });
    await backend.close();
    const copies = steps.filter(([step]) => step === 'copy');
    const size = copies[0]![2];
    expect(size).toBeGreaterThan(100_000);
    expect(copies[0]).toEqual(['copy', 0, size]);
    expect(copies.at(-1)).toEqual(['copy', size, size]);
    expect(steps.slice(copies.length)).toEqual([
      ['index', 0, 1],
      ['index', 1, 1],
      ['summaries', 0, 1],
      ['summaries', 1, 1],
    ]);

    // Reused from the cache: nothing to report.
    const again: unknown[] = [];
    const cached = tempDir();
    await (await openArchive(archive, { cacheDir: cached })).close();
    await (
      await openArchive(archive, { cacheDir: cached, onExtractProgress: (...s) => again.push(s) })
    ).close();
    expect(again).toEqual([]);

    const out = output();
    const draw = extractionProgress('small.aiida', { stream: out.stream, tty: false, showAfterMs: 0 });
    for (const step of steps) draw(...step);
    const text = out.text();
    expect(text).toMatch(/^quarry: extracting the database of small\.aiida: 0% \(0\.0 MB\/[\d.]+ MB/m);
    expect(text).toMatch(/^quarry: extracting the database of small\.aiida: 100% /m);
    expect(text).toMatch(/: adding indexes$/m);
    expect(text).toMatch(/: computing the node summaries$/m);
    expect(text).toMatch(/: done in [\d.]+ s$/m);
  });
});
