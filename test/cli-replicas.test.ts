/** Which PostgreSQL source each `--replica` of the command line belongs to. */
import { describe, expect, it } from 'vitest';
import { replicasBySource } from '../src/cli/replicas.js';

const A = 'postgres://db-a/aiida';
const B = 'postgresql://db-b/aiida';
const R1 = 'postgres://replica-1/aiida';
const R2 = 'postgres://replica-2/aiida';

describe('--replica', () => {
  it('belongs to the PostgreSQL source before it', () => {
    expect(replicasBySource([A, '--replica', R1, B, `--replica=${R2}`])).toEqual({ [A]: [R1], [B]: [R2] });
    expect(replicasBySource(['--profile', 'mc3d', '--replica', R1, '--replica', R2])).toEqual({
      'profile:mc3d': [R1, R2],
    });
    expect(replicasBySource(['x.aiida', '--profile=one', '--replica', R1])).toEqual({ 'profile:one': [R1] });
  });

  it('belongs to the first PostgreSQL source when it comes before every source', () => {
    expect(replicasBySource(['--replica', R1, '--port', '5001', A, B])).toEqual({ [A]: [R1] });
    expect(replicasBySource(['--replica', R1, '--profile', 'p', 'q'])).toEqual({ 'profile:p': [R1] });
  });

  it('is refused without a PostgreSQL source or with a URL that is not postgres://', () => {
    expect(() => replicasBySource(['demo.aiida', '--replica', R1])).toThrow(/needs a PostgreSQL source/);
    expect(() => replicasBySource([A, '--replica', 'mysql://x'])).toThrow(/postgres:\/\/ URL, not "mysql/);
    expect(() => replicasBySource([A, '--replica'])).toThrow(/postgres:\/\/ URL, not ""/);
    expect(replicasBySource([A, 'b.aiida'])).toEqual({});
  });
});
