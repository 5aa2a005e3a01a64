/**
 * The benchmark reports its figures as medians of rounds (src/bench/median.ts): a round caught in a spell of the
 * machine's noise must not be the figure, and every measurement counts an even number of rounds alike.
 */
import { describe, expect, it } from 'vitest';
import { median } from '../src/bench/median.js';

describe('the median of rounds', () => {
  it('is the middle value of an odd count, whatever the order', () => {
    expect(median([2.61, 2.12, 2.66])).toBe(2.61);
    expect(median([9, 1, 5, 3, 7])).toBe(5);
  });

  it('is the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('is undefined for no rounds, and leaves its input as it was', () => {
    expect(median([])).toBeUndefined();
    const rounds = [3, 1, 2];
    median(rounds);
    expect(rounds).toEqual([3, 1, 2]);
  });
});
