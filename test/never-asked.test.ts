/**
 * The never-asked benchmark reports each figure as the median of its rounds (src/bench/never-asked.ts): a round
 * caught in a spell of the machine's noise must not be the figure.
 */
import { describe, expect, it } from 'vitest';
import { middle } from '../src/bench/never-asked.js';

describe('the median of rounds', () => {
  it('is the middle value of an odd count, whatever the order', () => {
    expect(middle([2.61, 2.12, 2.66])).toBe(2.61);
    expect(middle([9, 1, 5, 3, 7])).toBe(5);
  });

  it('is the mean of the two middle values of an even count', () => {
    expect(middle([4, 1, 3, 2])).toBe(2.5);
  });

  it('is undefined for no rounds, and leaves its input as it was', () => {
    expect(middle([])).toBeUndefined();
    const rounds = [3, 1, 2];
    middle(rounds);
    expect(rounds).toEqual([3, 1, 2]);
  });
});
