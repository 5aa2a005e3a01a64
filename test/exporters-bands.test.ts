/**
 * BandsData exports on a small fixed band structure (3 k-points from G to X, 2 bands); the expected texts
 * follow the reference's answers for the rich archive's band structures (download-bands0-*).
 */
import { describe, expect, it } from 'vitest';
import {
  agrBatch,
  bandsJson,
  datBlocks,
  datMulticolumn,
  gnuplotScript,
  plotData,
  type Bands,
} from '../src/domain/formats/bands.js';
import { agrProject } from '../src/domain/formats/bands-agr.js';
import { mplSinglefile, mplWithJson } from '../src/domain/formats/bands-matplotlib.js';
import { FILE_HEADER } from '../src/domain/formats/array-json.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { npy } from '../src/generate/files.js';

const bands: Bands = {
  uuid: 'd5244a9a-cb21-4bb8-a8ee-3a0a6d97b6d4',
  label: '',
  bands: readNpy(npy([-2.859, 0.5006, -1.2177, 0.3364, 0.6022, 5.7149], [3, 2])),
  kpoints: readNpy(npy([0, 0, 0, 0.25, 0, 0, 0.5, 0, 0], [3, 3])),
  labels: [
    [0, 'G'],
    [2, 'X'],
  ],
};

const header = [
  ...FILE_HEADER.split('\n'),
  '',
  'Dumped from BandsData UUID=d5244a9a-cb21-4bb8-a8ee-3a0a6d97b6d4',
  '\tpoints\tbands',
  '\t3\t2',
  '',
  '\tlabel\tpoint',
  '\tG\t0.00000000',
  '\tX\t0.50000000',
]
  .map((l) => `# ${l}`)
  .join('\n');

describe('band structure exports', () => {
  it('measures the path along the k-points, with no distance across a jump between labels', () => {
    expect(plotData(bands).x).toEqual([0, 0.25, 0.5]);
    const jump = {
      ...bands,
      labels: [
        [0, 'G'],
        [1, 'X'],
      ] as [number, string][],
    };
    expect(plotData(jump).x).toEqual([0, 0, 0.25]);
    expect(plotData(jump, undefined, '|').labels).toEqual([[0, 'G|X']]);
    const greek = { ...bands, labels: [[0, 'GAMMA_1']] as [number, string][] };
    expect(plotData(greek, 'agr_seekpath').labels).toEqual([[0, '\\xG\\f{}\\s1\\N']]);
  });

  it('writes dat_multicolumn and dat_blocks as the reference does', () => {
    expect(datMulticolumn(bands)).toBe(
      `${header}\n0.00000000\t-2.85900000\t0.50060000\n0.25000000\t-1.21770000\t0.33640000\n0.50000000\t0.60220000\t5.71490000\n`,
    );
    expect(datBlocks(bands)).toBe(
      `${header}\n0.00000000\t-2.85900000\n0.25000000\t-1.21770000\n0.50000000\t0.60220000\n\n\n` +
        '0.00000000\t0.50060000\n0.25000000\t0.33640000\n0.50000000\t5.71490000\n\n',
    );
  });

  it('writes the xmgrace batch file with the world box and the labelled ticks', () => {
    const text = agrBatch(bands);
    expect(text).toContain('\nREAD XY "_data.dat"\nworld 0.0, -2.859, 0.5, 5.7149\n');
    expect(text).toContain('xaxis  tick spec 2\nxaxis  tick major 0, 0.0\nxaxis  ticklabel 0, "G"\n');
    expect(text.endsWith('s1 line color 1\ns1 linewidth 1\n')).toBe(true);
  });

  it('writes the JSON of the band visualizer: segments between labels, Python number types', () => {
    const json = bandsJson(bands);
    expect(JSON.parse(json)).toEqual({
      label: '',
      path: [['G', 'X']],
      paths: [
        {
          length: 2,
          from: 'G',
          to: 'X',
          values: [
            [-2.859, -1.2177, 0.6022],
            [0.5006, 0.3364, 5.7149],
          ],
          x: [0, 0.25, 0.5],
          two_band_types: false,
        },
      ],
      original_uuid: bands.uuid,
      comments: FILE_HEADER,
    });
    expect(json).toContain('"x": [0.0, 0.25, 0.5]');
  });

  it('writes the gnuplot script with labelled ticks, the ranges and the data file it plots', () => {
    const script = gnuplotScript(bands, 'eV');
    expect(script.startsWith(header.replaceAll('# ', '#  ').replaceAll('#\n', '# \n'))).toBe(true);
    expect(script).toContain('\nset xtics ("G" 0.0, "X" 0.5)\nunset key\nset yrange [-2.859:5.7149]\n');
    expect(script).toContain('set ylabel "Dispersion (eV)"\nset xrange [0.0:0.5]\n');
    expect(script.endsWith('plot "band_data.dat" with l lc rgb "#000000"\n')).toBe(true);
  });

  it('writes the xmgrace project: page set-up, world box, labelled ticks, one described set per band', () => {
    const agr = agrProject(bands, 'eV');
    expect(agr.startsWith(`${header}\n\n    # Grace project file\n    #\n    @version 50122\n`)).toBe(true);
    expect(agr).toContain('\n    @    world 0.0, -2.859, 0.5, 5.7149\n');
    expect(agr).toContain('\n    @    xaxis  tick major 1, 0.5\n    @    xaxis  ticklabel 1, "X"\n');
    expect(agr).toContain('\n    @    yaxis  label "Dispersion (eV)"\n');
    expect(agr).toContain('\n    @    yaxis  tick major 1\n');
    expect(agr).toContain('@    s1 line color 1\n');
    expect(
      agr.endsWith(
        '@target G0.S1\n    @type xy\n    0.00000000\t0.50060000\n0.25000000\t0.33640000\n0.50000000\t5.71490000\n\n    \n    ',
      ),
    ).toBe(true);
  });

  it('writes the matplotlib scripts with the plotted data inline or read from _data.json', () => {
    const single = mplSinglefile(bands, 'eV');
    expect(single.startsWith('# -*- coding: utf-8 -*-\n\nfrom matplotlib import rc\n')).toBe(true);
    expect(single).toContain('all_data_str = r"""{\n  "paths": [\n    {\n      "length": 2,\n');
    expect(single).toContain('"tick_pos": [\n    0.0,\n    0.5\n  ],');
    expect(single).toContain('p.scatter(x, values, marker="_")');
    expect(single.endsWith('    pass\npl.show()')).toBe(true);
    const withJson = mplWithJson(bands, 'eV');
    expect(withJson).toContain(
      `with open("_data.json", encoding='utf8') as f:\n    all_data_str = f.read()\n`,
    );
    expect(withJson).not.toContain('all_data_str = r');
  });

  it("measures a real band path (QE's silicon, seekpath's labels) within 1e-14 of aiida's numpy", () => {
    // Quantum ESPRESSO's fcc cell of a = 5.4306 Å, and the path G-X-U|K-G-L-W-X in crystal coordinates.
    const a = 5.4306 / 2;
    const at: Record<string, number[]> = {
      G: [0, 0, 0],
      X: [0.5, 0, 0.5],
      U: [0.625, 0.25, 0.625],
      K: [0.375, 0.375, 0.75],
      L: [0.5, 0.5, 0.5],
      W: [0.5, 0.25, 0.75],
    };
    const segments: [string, string, number][] = [
      ['G', 'X', 20],
      ['X', 'U', 7],
      ['K', 'G', 21],
      ['G', 'L', 17],
      ['L', 'W', 12],
      ['W', 'X', 9],
    ];
    const kpoints: number[] = [];
    const labels: [number, string][] = [];
    for (const [from, to, n] of segments) {
      const [s, e] = [at[from]!, at[to]!];
      labels.push([kpoints.length / 3, from]);
      for (let t = 0; t <= n; t++) kpoints.push(...[0, 1, 2].map((j) => s[j]! + ((e[j]! - s[j]!) * t) / n));
      labels.push([kpoints.length / 3 - 1, to]);
    }
    const silicon: Bands = {
      ...bands,
      bands: readNpy(npy(new Array<number>(92 * 2).fill(1.5), [92, 2])),
      kpoints: readNpy(npy(kpoints, [92, 3])),
      labels,
      cell: [
        [-a, 0, a],
        [0, a, a],
        [-a, a, 0],
      ],
    };
    const { x } = plotData(silicon);
    // aiida-core's _get_bandplot_data under numpy 2.4 (OpenBLAS): the x of each label, in order.
    const numpy = [
      0, 1.156996521043639, 1.156996521043639, 1.5660565639632393, 1.5660565639632393, 2.7932366927220422,
      2.7932366927220422, 3.795225072036049, 3.795225072036049, 4.6133451578752505, 4.6133451578752505,
      5.191843418397071,
    ];
    expect(x).toHaveLength(92);
    labels.forEach(([i], n) => expect(Math.abs(x[i]! - numpy[n]!)).toBeLessThanOrEqual(1e-14 * numpy[n]!));
    // No distance across the jump from U to K.
    expect(x[labels[3]![0]]).toBe(x[labels[4]![0]]);
  });
});
