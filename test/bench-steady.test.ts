import { describe, expect, it } from 'vitest';
import { steadily } from '../src/bench/steady.js';

/** A measurement function that gives the stolen shares in turn, and how often it was called. */
function measurements(steals: number[]) {
  let calls = 0;
  const measure = async () => ({ stealPct: steals[calls++] ?? 0, run: calls });
  return { measure, calls: () => calls };
}

describe('measurements taken again when the host stole much of the CPU', () => {
  it('keeps the first measurement at or under the limit', async () => {
    const m = measurements([4, 30]);
    expect(await steadily(m.measure, { stealLimit: 10, tries: 3 })).toEqual({
      stealPct: 4,
      run: 1,
      tries: 1,
    });
    expect(m.calls()).toBe(1);
  });

  it('measures again until one is steady enough', async () => {
    const m = measurements([35, 12, 10, 0]);
    expect(await steadily(m.measure, { stealLimit: 10, tries: 5 })).toEqual({
      stealPct: 10,
      run: 3,
      tries: 3,
    });
  });

  it('keeps the least disturbed one when none is steady within the tries', async () => {
    const m = measurements([40, 22, 31, 0]);
    expect(await steadily(m.measure, { stealLimit: 10, tries: 3 })).toEqual({
      stealPct: 22,
      run: 2,
      tries: 3,
    });
    expect(m.calls()).toBe(3);
  });

  it('measures once when one try is asked for', async () => {
    const m = measurements([90]);
    expect(await steadily(m.measure, { stealLimit: 0, tries: 1 })).toEqual({
      stealPct: 90,
      run: 1,
      tries: 1,
    });
  });
});
