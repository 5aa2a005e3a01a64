import { describe, expect, it } from 'vitest';
import { formatNodeRecord, formatRecord } from '../src/rest/format.js';

describe('formatting records', () => {
  it('writes dates as RFC 1123 GMT strings without fractions and sorts keys', () => {
    const out = formatRecord({ time: new Date(Date.UTC(2019, 2, 20, 11, 49, 40, 504)), label: 'x', id: 13 });
    expect(out).toEqual({ id: 13, label: 'x', time: 'Wed, 20 Mar 2019 11:49:40 GMT' });
    expect(Object.keys(out)).toEqual(['id', 'label', 'time']);
  });

  it('adds full_type to nodes', () => {
    expect(formatNodeRecord({ node_type: 'data.core.int.Int.', process_type: null }).full_type).toBe(
      'data.core.int.Int.|',
    );
    expect(formatNodeRecord({ id: 3 }).full_type).toBeNull();
  });
});
