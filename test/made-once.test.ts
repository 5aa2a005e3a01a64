import { describe, expect, it } from 'vitest';
import { MadeOnce } from '../src/util/made-once.js';

describe('work made once while under way', () => {
  it('runs one making for every ask while it runs, and a new one after it settled', async () => {
    const once = new MadeOnce<number>();
    let makings = 0;
    let finish!: (n: number) => void;
    const make = () => {
      makings++;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const asks = [once.run('a', make), once.run('a', make), once.run('a', make)];
    expect(once.get('a')).toBe(asks[0]);
    expect(makings).toBe(1);
    // Another key is other work.
    void once.run('b', () => Promise.resolve(2));
    finish(7);
    expect(await Promise.all(asks)).toEqual([7, 7, 7]);
    expect(once.get('a')).toBeUndefined();
    expect(await once.run('a', () => Promise.resolve(8))).toBe(8);
  });

  it('gives a failure to every waiting ask, and the next ask tries again', async () => {
    const once = new MadeOnce<number>();
    const failing = () => Promise.reject(new Error('refused'));
    const asks = [once.run('a', failing), once.run('a', () => Promise.resolve(1))];
    for (const ask of asks) await expect(ask).rejects.toThrow('refused');
    expect(once.get('a')).toBeUndefined();
    expect(await once.run('a', () => Promise.resolve(1))).toBe(1);
  });
});
