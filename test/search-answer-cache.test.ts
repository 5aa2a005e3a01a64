/**
 * The searches' answer cache: one answer made for identical searches arriving together, kept ones returned
 * as they were, incomplete ones never kept, and its bounds holding (the least recently used dropped first).
 */
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../src/search/answer-cache.js';

describe('the answer cache of searches', () => {
  it('makes one answer for identical searches arriving while it is made, and keeps it', async () => {
    const cache = new AnswerCache<{ n: number }>();
    let made = 0;
    const make = async () => {
      made += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { n: made };
    };
    const answers = await Promise.all([1, 2, 3].map(() => cache.answer('a', make, () => true)));
    expect(answers.map((a) => a.n)).toEqual([1, 1, 1]);
    expect((await cache.answer('a', make, () => true)).n).toBe(1);
    expect(made).toBe(1);
    expect((await cache.answer('b', make, () => true)).n).toBe(2);
  });

  it('does not keep an answer that says it is incomplete, nor a failure', async () => {
    const cache = new AnswerCache<number>();
    let made = 0;
    await cache.answer(
      'a',
      async () => ++made,
      () => false,
    );
    expect(
      await cache.answer(
        'a',
        async () => ++made,
        () => true,
      ),
    ).toBe(2);
    await expect(
      cache.answer(
        'b',
        () => Promise.reject(new Error('late')),
        () => true,
      ),
    ).rejects.toThrow('late');
    expect(
      await cache.answer(
        'b',
        async () => 7,
        () => true,
      ),
    ).toBe(7);
  });

  it('holds its bounds, dropping the least recently used answer first', async () => {
    const cache = new AnswerCache<string>(2, 1_000);
    for (const key of ['a', 'b'])
      await cache.answer(
        key,
        async () => key,
        () => true,
      );
    await cache.answer(
      'a',
      async () => 'again',
      () => true,
    );
    await cache.answer(
      'c',
      async () => 'c',
      () => true,
    );
    expect(cache.size).toBe(2);
    expect(
      await cache.answer(
        'a',
        async () => 'new',
        () => true,
      ),
    ).toBe('a');
    expect(
      await cache.answer(
        'b',
        async () => 'new',
        () => true,
      ),
    ).toBe('new');
    const big = new AnswerCache<string>(10, 100);
    for (const key of ['x', 'y'])
      await big.answer(
        key,
        async () => 'z'.repeat(20),
        () => true,
      );
    await big.answer(
      'w',
      async () => 'z'.repeat(20),
      () => true,
    );
    expect(big.size).toBeLessThanOrEqual(3);
    expect(
      await big.answer(
        'huge',
        async () => 'z'.repeat(50),
        () => true,
      ),
    ).toHaveLength(50);
    expect(
      await big.answer(
        'huge',
        async () => 'other',
        () => true,
      ),
    ).toBe('other');
  });
});
