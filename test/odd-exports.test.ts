/**
 * Exporters on odd data: cells with zero vectors completed as ASE completes them (expected values from
 * numpy running ASE's complete_cell), NaN and infinities in JSON and text formats.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { completeCell } from '../src/domain/cell.js';
import { bandsJson, datMulticolumn, type Bands } from '../src/domain/formats/bands.js';
import { mplSinglefile } from '../src/domain/formats/bands-matplotlib.js';
import { MOST_NPY_VALUES, readNpy, toNestedList } from '../src/domain/formats/npy.js';
import { pyFixed, pyFloat, pyJson, PyFloat } from '../src/domain/formats/python-text.js';
import { npy } from '../src/generate/files.js';
import { readNodeFile, type NodeRecord } from '../src/rest/node-contents.js';
import type { StorageBackend } from '../src/storage/types.js';

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

describe('arrays whose shape asks for more than they hold', () => {
  it('are refused at once, not built list by list until the process dies', () => {
    // No value, yet tolist() would make a billion empty lists.
    expect(() => readNpy(npy([], [1_000_000_000, 0]))).toThrow(/holds more than 8388608 values or lists/);
    expect(() => readNpy(npy([], [MOST_NPY_VALUES + 1]))).toThrow(/more than/);
    expect(() => readNpy(npy([], [-1]))).toThrow(/is not a list of sizes/);
    expect(() => readNpy(npy([], [2.5]))).toThrow(/is not a list of sizes/);
  });

  it('are read when empty in a dimension after the others, as numpy lists them', () => {
    expect(toNestedList(readNpy(npy([], [2, 0])), (v) => v)).toEqual([[], []]);
    expect(toNestedList(readNpy(npy([], [0, 1_000_000_000])), (v) => v)).toEqual([]);
  });
});

describe('repository files read whole for a download', () => {
  const node = {
    uuid: 'd5244a9a-cb21-4bb8-a8ee-3a0a6d97b6d4',
    repository_metadata: { o: { 'positions.npy': { k: 'abc' } } },
  } as unknown as NodeRecord;
  /** A storage whose one object says it has `size` bytes and streams `held`. */
  const storage = (size: number, held: number) =>
    ({
      repository: {
        get: async () => ({ size, stream: async () => Readable.from([Buffer.alloc(held)]) }),
      },
    }) as unknown as StorageBackend;

  it('are refused past the bound with the raw download named, whatever size the storage states', async () => {
    await expect(readNodeFile(storage(100, 100), node, 'positions.npy', 10)).rejects.toThrow(
      /holds 100 bytes; this server converts files of at most 10 bytes: download it as it is at \/nodes\/d5244a9a-cb21-4bb8-a8ee-3a0a6d97b6d4\/repo\/contents\?filename=positions.npy/,
    );
    await expect(readNodeFile(storage(5, 100), node, 'positions.npy', 10)).rejects.toThrow(/holds 100 bytes/);
    expect((await readNodeFile(storage(10, 10), node, 'positions.npy', 10)).length).toBe(10);
  });
});
