/** The benchmark's crowd figures (src/bench/crowd.ts) and its GET mix (src/bench/scale-mix.ts). */
import { describe, expect, it } from 'vitest';
import { crowdRatios } from '../src/bench/crowd.js';
import type { RequestKind } from '../src/bench/mix.js';
import { getMix } from '../src/bench/scale-mix.js';

describe('the benchmark crowd figures', () => {
  it('sets each kind at the most clients against one client, leaving out the empty route', () => {
    const rows = [
      { kind: 'empty route (HTTP floor, before)', connections: 1, rps: 30000 },
      { kind: 'grid', connections: 1, rps: 2000 },
      { kind: 'grid', connections: 16, rps: 1500 },
      { kind: 'grid', connections: 64, rps: 1000 },
      { kind: 'empty route (HTTP floor, before)', connections: 64, rps: 40000 },
      { kind: 'only at 64', connections: 64, rps: 10 },
    ];
    expect(crowdRatios(rows, [1, 16, 64])).toEqual([
      { kind: 'grid', connections: 64, rps: 1000, soloRps: 2000, ratio: 0.5 },
    ]);
    // Without a run at one client there is nothing to compare with.
    expect(crowdRatios(rows, [16, 64])).toEqual([]);
  });

  it('mixes the plain GETs of every kind, interleaved, without revalidations, codings, plots or posts', () => {
    const kind = (name: string, n: number, extra: Partial<RequestKind> = {}): RequestKind => ({
      name,
      method: 'GET',
      paths: Array.from({ length: n }, (_, i) => `/${name}/${i}`),
      ...extra,
    });
    const mix = getMix([
      kind('a', 6),
      kind('b', 1),
      kind('a, br', 2, { headers: [{}, {}] }),
      kind('a, 304', 2, { expectStatus: 304 }),
      kind('bands download as mpl_png', 2),
      kind('q', 1, { method: 'POST' }),
    ]);
    expect(mix.method).toBe('GET');
    expect(mix.paths).toEqual(['/a/0', '/b/0', '/a/1', '/a/2', '/a/3']);
    expect(mix.name).toBe('GET mix (5 requests of 2 kinds)');
  });
});
