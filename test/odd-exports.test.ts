/**
 * Exporters on odd data: cells with zero vectors completed as ASE completes them (expected values from
 * numpy running ASE's complete_cell), NaN and infinities in JSON and text formats.
 */
import { describe, expect, it } from 'vitest';
import { completeCell } from '../src/domain/cell.js';
import { bandsJson, datMulticolumn, type Bands } from '../src/domain/formats/bands.js';
import { mplSinglefile } from '../src/domain/formats/bands-matplotlib.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { pyFixed, pyFloat, pyJson, PyFloat } from '../src/domain/formats/python-text.js';
import { npy } from '../src/generate/files.js';

const expectCell = (actual: number[][], expected: number[][]) => {
  actual.forEach((row, i) =>
    row.forEach((x, j) => expect(x, `[${i}][${j}]`).toBeCloseTo(expected[i]![j]!, 12)),
  );
};
const zeros = () => [
  [0, 0, 0],
  [0, 0, 0],
  [0, 0, 0],
];
const withRow = (row: number, v: number[]) => zeros().map((r, i) => (i === row ? v : r));

describe('cells completed as ASE completes them', () => {
  it('leaves full cells alone, and makes no cell the unit cell', () => {
    const full = [
      [1, 2, 0],
      [0, 3, 0],
      [0.5, 0, 4],
    ];
    expect(completeCell(full)).toEqual(full);
    expect(completeCell(zeros())).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
  });

  it('completes one missing vector with the unit normal of the others', () => {
    expectCell(
      completeCell([
        [0, 0, 0],
        [1, 2, 0],
        [0, 1, 3],
      ]),
      [
        [0.8846517369293828, -0.4423258684646914, 0.14744195615489714],
        [1, 2, 0],
        [0, 1, 3],
      ],
    );
  });

  it('completes two missing vectors with the pair numpy SVD gives', () => {
    expectCell(completeCell(withRow(2, [0, 0, 2.5])), [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 2.5],
    ]);
    expectCell(completeCell(withRow(0, [0, 0, 2.5])), [
      [0, 0, 2.5],
      [0, 1, 0],
      [-1, 0, 0],
    ]);
    expectCell(completeCell(withRow(2, [2.5, 0, 0])), [
      [0, -1, 0],
      [0, 0, -1],
      [2.5, 0, 0],
    ]);
    expectCell(completeCell(withRow(0, [-2.5, 0, 0])), [
      [-2.5, 0, 0],
      [0, -1, 0],
      [0, 0, 1],
    ]);
    expectCell(completeCell(withRow(1, [0, 0, -2])), [
      [1, 0, 0],
      [0, 0, -2],
      [0, 1, 0],
    ]);
    expectCell(completeCell(withRow(0, [1, 2, 3])), [
      [1, 2, 3],
      [-0.5345224838248488, 0.7745419205884383, -0.33818711911734267],
      [-0.8017837257372732, -0.3381871191173426, 0.492719321323986],
    ]);
    expectCell(completeCell(withRow(1, [-1, 0.5, 2])), [
      [0.8997354108424374, 0.1058512248049927, 0.4234048992199705],
      [-1, 0.5, 2],
      [0, -0.970142500145332, 0.24253562503633289],
    ]);
    expectCell(completeCell(withRow(2, [-1, 0.5, 2])), [
      [-0.8997354108424374, -0.1058512248049927, -0.4234048992199705],
      [0, -0.970142500145332, 0.24253562503633289],
      [-1, 0.5, 2],
    ]);
  });
});

describe('NaN and infinities', () => {
  it('are null in JSON, as Python writes them in scripts, and as Python prints them in text', () => {
    const values = [new PyFloat(NaN), new PyFloat(Infinity), -Infinity, new PyFloat(1)];
    expect(pyJson(values)).toBe('[null, null, null, 1.0]');
    expect(pyJson(values, undefined, 'python')).toBe('[NaN, Infinity, -Infinity, 1.0]');
    expect([NaN, Infinity, -Infinity].map(pyFloat)).toEqual(['nan', 'inf', '-inf']);
    expect(pyFixed(NaN, 8, 12)).toBe('         nan');
    expect(pyFixed(-Infinity, 8)).toBe('-inf');
  });

  const bands: Bands = {
    uuid: 'd5244a9a-cb21-4bb8-a8ee-3a0a6d97b6d4',
    label: '',
    bands: readNpy(npy([-2.5, NaN, -1.25, Infinity, 0.5, 5.75], [3, 2])),
    kpoints: readNpy(npy([0, 0, 0, 0.25, 0, 0, 0.5, 0, 0], [3, 3])),
  };

  it('leave the JSON of band structures valid', () => {
    const json = JSON.parse(bandsJson(bands)) as { paths: { values: unknown[][] }[] };
    expect(json.paths[0]!.values).toEqual([
      [-2.5, -1.25, 0.5],
      [null, null, 5.75],
    ]);
  });

  it('are written by text formats and scripts as the reference writes them', () => {
    expect(datMulticolumn(bands)).toContain('0.25000000\t-1.25000000\tinf');
    // numpy's nanmin and nanmax: NaN left out, infinities kept.
    const script = mplSinglefile(bands, 'eV');
    expect(script).toContain('          NaN,\n          Infinity,');
    expect(script).toContain('"y_min_lim": -2.5');
    expect(script).toContain('"y_max_lim": Infinity');
  });
});
