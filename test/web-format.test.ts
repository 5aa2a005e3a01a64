/** How the explorer shows values (web/src/format.ts). */
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  kindName,
  localDateTime,
  parseApiDate,
  perMonth,
  typeFilterName,
  typeOptions,
  typeName,
  userName,
  utcDateTime,
} from '../web/src/format.js';
import { labelHasWord, searchesWords } from '../web/src/label-words.js';

describe('dates', () => {
  it("read the API's RFC 1123 dates, and show them in the reader's zone with the exact UTC value", () => {
    const date = parseApiDate('Mon, 04 Mar 2019 10:31:13 GMT')!;
    expect(date.toISOString()).toBe('2019-03-04T10:31:13.000Z');
    expect(utcDateTime(date)).toBe('2019-03-04 10:31:13 UTC');
    expect(localDateTime(date, 'Europe/Zurich')).toBe('2019-03-04 11:31');
    expect(localDateTime(date, 'America/New_York')).toBe('2019-03-04 05:31');
    expect(localDateTime(new Date('2019-03-04T23:30:00Z'), 'Asia/Tokyo')).toBe('2019-03-05 08:30');
  });

  it('are undefined for what is no date', () => {
    expect(parseApiDate('')).toBeUndefined();
    expect(parseApiDate('soon')).toBeUndefined();
    expect(parseApiDate(null)).toBeUndefined();
  });
});

describe('per month', () => {
  it('adds the days of each month and keeps the empty months between', () => {
    expect(perMonth({ '2019-11-02': 3, '2019-11-30': 2, '2020-02-01': 1, '2019-12-31': 0 })).toEqual([
      { month: '2019-11', count: 5 },
      { month: '2019-12', count: 0 },
      { month: '2020-01', count: 0 },
      { month: '2020-02', count: 1 },
    ]);
    expect(perMonth({})).toEqual([]);
    // Not a month: left out (a walk that compared "10000-01" with "9999-13" as text never ended).
    expect(perMonth({ '9999-12-01': 1, '9999-13-01': 2 })).toEqual([{ month: '9999-12', count: 1 }]);
    expect(perMonth({ '0999-12-01': 1, '1000-01-02': 2 })).toEqual([
      { month: '0999-12', count: 1 },
      { month: '1000-01', count: 2 },
    ]);
  });
});

describe('names', () => {
  it('of types, processes, users and sizes', () => {
    expect(typeName('data.core.structure.StructureData.')).toBe('StructureData');
    expect(kindName({ node_type: 'data.core.int.Int.', process_type: null })).toBe('Int');
    expect(
      kindName({
        node_type: 'process.calculation.calcjob.CalcJobNode.',
        process_type: 'aiida.calculations:core.arithmetic.add',
      }),
    ).toBe('core.arithmetic.add');
    expect(userName({ id: 3, first_name: 'Dan', last_name: 'Dörr' })).toBe('Dan Dörr');
    expect(userName({ id: 3, first_name: '', last_name: '', email: 'a@b' })).toBe('a@b');
    expect(userName({ id: 3 })).toBe('user 3');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(200 * 1024)).toBe('200 KiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
  });
});

describe('type menu', () => {
  it('lists every type of the tree below its root, each with its depth and count', () => {
    const leaf = (full_type: string, label: string, counter: number) => ({
      full_type,
      label,
      counter,
      subspaces: [],
    });
    const tree = {
      full_type: 'node.%|',
      label: 'node',
      counter: 6,
      subspaces: [
        {
          full_type: 'data.%|',
          label: 'Data',
          counter: 5,
          subspaces: [leaf('data.core.int.Int.|', 'Int', 5)],
        },
        leaf('process.%|', 'Process', 1),
      ],
    };
    expect(typeOptions(tree)).toEqual([
      { full_type: 'data.%|', label: 'Data', depth: 0, counter: 5 },
      { full_type: 'data.core.int.Int.|', label: 'Int', depth: 1, counter: 5 },
      { full_type: 'process.%|', label: 'Process', depth: 0, counter: 1 },
    ]);
  });
});

describe('a type filter outside the type tree', () => {
  const options = [
    { full_type: 'data.core.array.%|', label: 'array' },
    { full_type: 'data.core.array.bands.BandsData.|', label: 'BandsData' },
    { full_type: 'data.core.array.kpoints.KpointsData.|', label: 'KpointsData' },
    { full_type: 'data.core.structure.StructureData.|', label: 'StructureData' },
  ];
  it("reads as the one type a home shortcut's pattern matches, never as the raw pattern", () => {
    expect(typeFilterName('data.core.array.bands.%|', options)).toBe('BandsData');
    expect(typeFilterName('data.core.structure.%|', options)).toBe('StructureData');
  });
  it('reads as its last word when it matches several types or none', () => {
    expect(
      typeFilterName('data.core.array.k%|', [
        ...options,
        { full_type: 'data.core.array.kx.X.|', label: 'X' },
      ]),
    ).toBe('array (any)');
    expect(typeFilterName('data.core.cif.%|', options)).toBe('cif (any)');
  });
});

describe('a short label search', () => {
  it('matches whole words, with anything but a letter around them', () => {
    expect(searchesWords('Si')).toBe(true);
    expect(searchesWords('silicon')).toBe(false);
    for (const label of [
      'Si',
      'Si diamond',
      'CIF Si2',
      'bands Si2',
      'Si.cif (aiida static)',
      'md trajectory Si2',
    ])
      expect(labelHasWord(label, 'Si'), label).toBe(true);
    for (const label of ['singlefile-0', 'binary singlefile', 'Basis', 'SiO'])
      expect(labelHasWord(label, 'si'), label).toBe(false);
  });
});
