import { describe, expect, it } from 'vitest';
import { arraysJson, FILE_HEADER } from '../src/domain/formats/array-json.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { PyFloat, pyFixed, pyFloat, pyJson } from '../src/domain/formats/python-text.js';
import { kindHtml, toChemdoodle, toXsf, toXyz } from '../src/domain/formats/structure-formats.js';
import { dimensionality, formula, structureFormula, type Structure } from '../src/domain/structure.js';
import { describeNode } from '../src/domain/describe.js';
import { npy } from '../src/generate/files.js';

const salt: Structure = {
  cell: [
    [4, 0, 0],
    [0, 4, 0],
    [0, 0, 4],
  ],
  pbc: [true, true, true],
  kinds: [
    { name: 'Na', symbols: ['Na'], weights: [1] },
    { name: 'Cl', symbols: ['Cl'], weights: [1] },
  ],
  sites: [
    { kind_name: 'Na', position: [0, 0, 0] },
    { kind_name: 'Cl', position: [2, 2, 2] },
  ],
};

describe('Python-style numbers and JSON', () => {
  it('writes floats as repr() does', () => {
    expect([0.1, 1, -0, 1e-5, 1.5e-7, 123456.789, 1e16, 2.5e22, 0.0001].map(pyFloat)).toEqual([
      '0.1',
      '1.0',
      '-0.0',
      '1e-05',
      '1.5e-07',
      '123456.789',
      '1e+16',
      '2.5e+22',
      '0.0001',
    ]);
    expect(pyFixed(-0, 3, 8)).toBe('  -0.000');
    expect(pyFixed(2.15, 10, 18)).toBe('      2.1500000000');
  });

  it('dumps JSON with json.dumps separators and ASCII escapes', () => {
    expect(pyJson({ a: [1, new PyFloat(2)], b: 'Dörr', c: null, d: true })).toBe(
      '{"a": [1, 2.0], "b": "D\\u00f6rr", "c": null, "d": true}',
    );
  });
});

describe('structure exports', () => {
  it('XYZ and XSF as aiida writes them', () => {
    expect(toXyz(salt)).toBe(
      [
        '2',
        'Lattice="4.0 0.0 0.0 0.0 4.0 0.0 0.0 0.0 4.0" pbc="True True True"',
        'Na           0.0000000000       0.0000000000       0.0000000000',
        'Cl           2.0000000000       2.0000000000       2.0000000000',
      ].join('\n'),
    );
    expect(toXsf(salt).split('\n').slice(0, 7)).toEqual([
      'CRYSTAL',
      'PRIMVEC 1',
      '      4.0000000000       0.0000000000       0.0000000000',
      '      0.0000000000       4.0000000000       0.0000000000',
      '      0.0000000000       0.0000000000       4.0000000000',
      'PRIMCOORD 1',
      '2 1',
    ]);
    expect(toXsf(salt)).toContain('\n17       2.0000000000       2.0000000000       2.0000000000\n');
  });

  it('ChemDoodle JSON centres the cell', () => {
    const doc = JSON.parse(toChemdoodle(salt));
    expect(doc.s[0].o).toEqual([-2, -2, -2]);
    expect(doc.m[0].a[1]).toMatchObject({ l: 'Cl', x: 0, y: 0, z: 0, atomic_elements_html: 'Cl' });
    expect(doc.units).toBe('&Aring;');
  });

  it('refuses alloys where the format cannot say them', () => {
    const alloy = {
      ...salt,
      kinds: [{ name: 'Na', symbols: ['Na', 'K'], weights: [0.5, 0.5] }, salt.kinds[1]!],
    };
    expect(() => toXyz(alloy)).toThrow(/alloys or vacancies/);
    expect(kindHtml('{K0.50Na0.50}')).toBe('K<sub>0.50</sub> + Na<sub>0.50</sub>');
    expect(structureFormula(alloy)).toBe('Cl{K0.50Na0.50}');
  });
});

describe('formulae, dimensionality, descriptions', () => {
  it('follows Hill order and compaction', () => {
    expect(formula(['C', 'H', 'H', 'H', 'O', 'C', 'H', 'H', 'H'])).toBe('C2H6O');
    expect(formula(['S', 'O', 'O', 'H', 'O', 'H', 'O'])).toBe('H2O4S');
    expect(formula(['Ba', 'Ti', 'O', 'O', 'O', 'Ba', 'Ti', 'O', 'O', 'O'], 'hill_compact')).toBe('BaO3Ti');
  });

  it('measures the periodic part of the cell', () => {
    expect(dimensionality(salt)).toEqual({ dim: 3, label: 'volume', value: 64 });
    expect(dimensionality({ ...salt, pbc: [true, true, false] })).toEqual({
      dim: 2,
      label: 'surface',
      value: 16,
    });
    expect(dimensionality({ ...salt, pbc: [false, false, false] })).toEqual({ dim: 0, label: '', value: 0 });
  });

  it('describes nodes as get_description() does', () => {
    const node = (node_type: string, attributes: Record<string, unknown>, description = '') => ({
      node_type,
      attributes,
      description,
    });
    expect(
      describeNode(node('data.core.array.kpoints.KpointsData.', { mesh: [2, 2, 2], offset: [0, 0.5, 0] })),
    ).toBe('Kpoints mesh: 2x2x2 (+0.0,0.5,0.0)');
    expect(describeNode(node('data.array.kpoints.KpointsData.', { 'array|kpoints': [6, 3] }))).toBe(
      '(Path of 6 kpts)',
    );
    expect(describeNode(node('process.calculation.calcjob.CalcJobNode.', { state: 'parsing' }))).toBe(
      'parsing',
    );
    expect(describeNode(node('process.calculation.calcjob.CalcJobNode.', { state: 'WEIRD' }))).toBe(
      'CalcJobNode',
    );
    expect(describeNode(node('data.core.code.installed.InstalledCode.', {}, 'pw.x 7.2'))).toBe('pw.x 7.2');
    expect(describeNode(node('data.core.dict.Dict.', { a: 1 }))).toBe('');
  });
});

describe('arrays', () => {
  it('reads .npy files and exports them as aiida JSON', async () => {
    const files: Record<string, Buffer> = {
      'm.npy': npy([1, 2.5, 3, 4], [2, 2]),
      'i.npy': npy([7, 8, 9], [3], '<i8'),
    };
    expect(readNpy(files['m.npy']!)).toMatchObject({ shape: [2, 2], isFloat: true, data: [1, 2.5, 3, 4] });
    const text = await arraysJson('u-1', { 'array|m': [2, 2], 'array|i': [3] }, async (name) => files[name]!);
    expect(text).toBe(
      `{"m": [[1.0, 2.5], [3.0, 4.0]], "i": [7, 8, 9], "original_uuid": "u-1", "comments": ${pyJson(FILE_HEADER)}}`,
    );
  });

  it('exports arrays of strings (numpy U and S dtypes) as lists of strings', async () => {
    // As numpy writes them: a header padded to 64 bytes, each item padded with NULs to the dtype's width.
    const npyOf = (descr: string, shape: string, items: Buffer[]) => {
      let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
      header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
      const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 0, 0]);
      prefix.writeUInt16LE(header.length, 8);
      return Buffer.concat([prefix, Buffer.from(header, 'latin1'), ...items]);
    };
    const unicode = (text: string, width: number) => {
      const b = Buffer.alloc(width * 4);
      [...text].forEach((ch, i) => b.writeUInt32LE(ch.codePointAt(0)!, i * 4));
      return b;
    };
    const bytes = (text: string, width: number) =>
      Buffer.concat([Buffer.from(text), Buffer.alloc(width - text.length)]);
    const files: Record<string, Buffer> = {
      'atomic_species_name.npy': npyOf('|S12', '(2,)', [bytes('Ga', 12), bytes('As', 12)]),
      'symbols.npy': npyOf('<U2', '(3,)', [unicode('Ga', 2), unicode('As', 2), unicode('H', 2)]),
      'pairs.npy': npyOf(
        '|S2',
        '(2, 2)',
        ['Fe', 'O', 'Ni', 'X'].map((t) => bytes(t, 2)),
      ),
    };
    const text = await arraysJson(
      'u-2',
      { 'array|atomic_species_name': [2], 'array|symbols': [3], 'array|pairs': [2, 2] },
      async (name) => files[name]!,
    );
    expect(JSON.parse(text)).toMatchObject({
      atomic_species_name: ['Ga', 'As'],
      symbols: ['Ga', 'As', 'H'],
      pairs: [
        ['Fe', 'O'],
        ['Ni', 'X'],
      ],
    });
    const cut = files['symbols.npy']!.subarray(0, files['symbols.npy']!.length - 4);
    await expect(arraysJson('u-3', { 'array|symbols': [3] }, async () => cut)).rejects.toThrow(/truncated/);
  });
});
