import { describe, expect, it } from 'vitest';
import { KeptMap } from '../src/util/kept-map.js';

describe('kept maps', () => {
  it('hold at most their capacity, forgetting first what was not read', () => {
    const kept = new KeptMap<number>(3);
    kept.set('a', 1);
    kept.set('b', 2);
    kept.set('c', 3);
    expect(kept.get('a')).toBe(1);
    kept.set('d', 4);
    expect(kept.size).toBe(3);
    expect(kept.get('b')).toBeUndefined();
    expect([kept.get('a'), kept.get('c'), kept.get('d')]).toEqual([1, 3, 4]);
  });

  it('forget the oldest when every entry was read, and give a read entry one more round only', () => {
    const kept = new KeptMap<string>(2);
    kept.set('x', 'x');
    kept.set('y', 'y');
    kept.get('x');
    kept.get('y');
    kept.set('z', 'z');
    expect(kept.get('x')).toBeUndefined();
    expect(kept.get('y')).toBe('y');
    expect(kept.get('z')).toBe('z');
  });

  it('replace the value of a key set again without growing', () => {
    const kept = new KeptMap<number>(2);
    kept.set('a', 1);
    kept.set('a', 2);
    kept.set('b', 3);
    expect(kept.size).toBe(2);
    expect(kept.get('a')).toBe(2);
    kept.delete('a');
    expect(kept.get('a')).toBeUndefined();
  });

  it("give a deleted entry's place first, and keep a key read at every turn through any number of others", () => {
    const kept = new KeptMap<number>(4);
    for (const k of ['a', 'b', 'c', 'd']) kept.set(k, 0);
    kept.delete('b');
    kept.set('e', 1);
    // The freed place was taken: nothing was forgotten for e.
    expect(kept.size).toBe(4);
    for (let i = 0; i < 1000; i++) {
      kept.get('a');
      kept.set(`k${i}`, i);
      if (i % 7 === 0) kept.delete(`k${i - 3}`);
      expect(kept.size).toBeLessThanOrEqual(4);
    }
    expect([kept.get('a'), kept.get('k999')]).toEqual([0, 999]);
    expect(['c', 'd', 'e', 'k900'].map((k) => kept.get(k))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
