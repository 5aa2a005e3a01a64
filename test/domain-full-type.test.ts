import { describe, expect, it } from 'vitest';
import { fullTypeFilters, fullTypeOf, FullTypeError } from '../src/domain/full-type.js';

describe('full types', () => {
  it('joins node_type and process_type', () => {
    expect(fullTypeOf('data.core.int.Int.', null)).toBe('data.core.int.Int.|');
    expect(
      fullTypeOf('process.calculation.calcjob.CalcJobNode.', 'aiida.calculations:core.arithmetic.add'),
    ).toBe('process.calculation.calcjob.CalcJobNode.|aiida.calculations:core.arithmetic.add');
    expect(fullTypeOf(null, null)).toBeNull();
  });

  it('turns a full type into node_type / process_type filters', () => {
    expect(fullTypeFilters('data.core.dict.Dict.|')).toEqual({
      node_type: { '==': 'data.core.dict.Dict.' },
      process_type: { or: [{ '==': '' }, { '==': null }] },
    });
    expect(fullTypeFilters('process.%|%')).toEqual({ node_type: { like: 'process.%' } });
    expect(fullTypeFilters('process.calculation.calcjob.CalcJobNode.|aiida.calculations:a_b%')).toEqual({
      node_type: { '==': 'process.calculation.calcjob.CalcJobNode.' },
      process_type: { like: 'aiida.calculations:a\\_b%' },
    });
  });

  it('reads a full type without "|" as any process type (legacy explorer)', () => {
    expect(fullTypeFilters('data.core.structure.StructureData.')).toEqual({
      node_type: { '==': 'data.core.structure.StructureData.' },
    });
  });

  it('refuses malformed full types with a message', () => {
    expect(() => fullTypeFilters('a|b|c')).toThrow(FullTypeError);
    expect(() => fullTypeFilters('data.%core.|')).toThrow(/only end a component/);
    expect(() => fullTypeFilters('data.%%|')).toThrow(/more than once/);
  });
});
