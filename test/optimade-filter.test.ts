import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILTER_GENERATED, FILTER_GRAMMAR, parserSource } from '../scripts/generate-parser.mjs';
import { parseFilter, type FilterNode } from '../src/optimade/filter-ast.js';
import { OptimadeError } from '../src/optimade/errors.js';
import { optimadeFilterExamples } from './conformance/corpus.js';

/** The specification's own filter examples (README there: `*_fail.filter` must be refused). */
const EXAMPLES = optimadeFilterExamples() ?? '';

const refusal = (text: string) => {
  try {
    parseFilter(text);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OptimadeError);
    return error as OptimadeError;
  }
};

describe.skipIf(EXAMPLES === '')('the specification test suite of filters', () => {
  const files = existsSync(EXAMPLES) ? readdirSync(EXAMPLES).filter((f) => f.endsWith('.filter')) : [];
  const read = (f: string) => readFileSync(join(EXAMPLES, f), 'utf8');

  it('holds the examples', () => expect(files.length).toBeGreaterThan(60));

  for (const file of files.filter((f) => !f.endsWith('_fail.filter'))) {
    it(`parses ${file}`, () => expect(refusal(read(file))).toBeUndefined());
  }
  for (const file of files.filter((f) => f.endsWith('_fail.filter'))) {
    // f06_fail.filter is byte for byte f06.filter, which must parse: no parser can do both. It is held to
    // that, so that a corrected file is held to failing.
    if (file === 'f06_fail.filter' && files.includes('f06.filter') && read(file) === read('f06.filter')) {
      it('f06_fail.filter is f06.filter again, so it parses', () =>
        expect(refusal(read(file))).toBeUndefined());
      continue;
    }
    it(`refuses ${file} with a 400 that says where`, () => {
      const error = refusal(read(file));
      expect(error?.status).toBe(400);
      expect(error?.message).toMatch(/at character \d+/);
    });
  }
});

const p = (text: string): FilterNode => parseFilter(text);
const cmp = (name: string, op: string, right: unknown) => ({
  type: 'compare',
  left: { kind: 'property', path: [name] },
  op,
  right,
});
const num = (text: string) => ({ kind: 'number', text, value: Number(text) });
const str = (value: string) => ({ kind: 'string', value });

describe('the filter tree', () => {
  it('binds NOT tighter than AND, and AND tighter than OR', () => {
    expect(p('NOT a > 1 OR c = 100 AND f = "C2 H6"')).toEqual({
      type: 'or',
      items: [
        { type: 'not', expr: cmp('a', '>', num('1')) },
        { type: 'and', items: [cmp('c', '=', num('100')), cmp('f', '=', str('C2 H6'))] },
      ],
    });
    expect(p('(a=1 OR b=2) AND c=3')).toEqual({
      type: 'and',
      items: [
        { type: 'or', items: [cmp('a', '=', num('1')), cmp('b', '=', num('2'))] },
        cmp('c', '=', num('3')),
      ],
    });
  });

  it('reads numbers in every form the specification lists, and refuses the ones it calls invalid', () => {
    for (const n of [
      '12345',
      '+12',
      '-34',
      '1.2',
      '.2E7',
      '-.2E+7',
      '+10.01E-10',
      '6.03e23',
      '1.e-12',
      '1.',
      '.1',
    ]) {
      expect(p(`nsites = ${n}`)).toEqual(cmp('nsites', '=', num(n)));
    }
    for (const n of ['1.234D12', '.e1', '-.E1', '+.E2', '1.23E+++', '+-123']) {
      expect(refusal(`nsites = ${n}`)?.status).toBe(400);
    }
  });

  it('unescapes strings and keeps what is not ASCII', () => {
    expect(p('a = "say \\"hi\\" \\\\ Sąžininga"')).toEqual(cmp('a', '=', str('say "hi" \\ Sąžininga')));
  });

  it('reads every mandatory construct', () => {
    expect(p('elements HAS ALL "Si", "O"')).toEqual({
      type: 'has',
      property: ['elements'],
      mode: 'all',
      values: [
        { op: '=', value: str('Si') },
        { op: '=', value: str('O') },
      ],
    });
    expect(p('elements HAS ANY "Si"')).toMatchObject({ type: 'has', mode: 'any' });
    expect(p('elements HAS "Si"')).toMatchObject({ type: 'has', mode: 'one' });
    expect(p('elements LENGTH 3')).toEqual({
      type: 'length',
      property: ['elements'],
      op: '=',
      value: num('3'),
    });
    expect(p('elements LENGTH >= 3')).toMatchObject({ type: 'length', op: '>=' });
    expect(p('chemical_formula_hill IS UNKNOWN')).toEqual({
      type: 'known',
      property: ['chemical_formula_hill'],
      known: false,
    });
    expect(p('chemical_formula_reduced STARTS WITH "Si"')).toMatchObject({ type: 'fuzzy', op: 'STARTS' });
    expect(p('chemical_formula_reduced ENDS "O2"')).toMatchObject({ type: 'fuzzy', op: 'ENDS' });
    expect(p('a = TRUE')).toEqual(cmp('a', '=', { kind: 'boolean', value: true }));
    expect(p('_quarry_label')).toEqual({ type: 'bare', property: ['_quarry_label'] });
    expect(p('5 < nsites')).toEqual({
      type: 'compare',
      left: num('5'),
      op: '<',
      right: { kind: 'property', path: ['nsites'] },
    });
  });

  it('refuses what is not the language, saying where', () => {
    expect(refusal('nelements <> 3')?.message).toMatch(/character 12/);
    expect(refusal('Nelements = 3')?.status).toBe(400);
    expect(refusal('nelements = 3 and nsites = 2')?.status).toBe(400);
    expect(refusal('elements HAS "Si" "O"')?.status).toBe(400);
    expect(refusal('(nsites = 1')?.status).toBe(400);
    expect(refusal('a < TRUE')?.status).toBe(400);
    expect(refusal('')?.status).toBe(400);
  });
});

it('filter-parser.generated.ts is up to date with filter.peggy (run `npm run grammar`)', () => {
  expect(readFileSync(FILTER_GENERATED, 'utf8')).toBe(parserSource(FILTER_GRAMMAR));
});
