/**
 * The pure logic of the explorer's by-type views (web/src/by-type/logic), checked on hand-made cases and on the
 * real rich conformance archive, whose answers come from the API the views read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  arrayInfos,
  formatNumber,
  scientific,
  tableRows,
  trajectoryFrame,
  xySeries,
} from '../web/src/by-type/logic/arrays.js';
import {
  bandsPlot,
  bandTicks,
  displayLabel,
  isBandsJson,
  type BandsJson,
} from '../web/src/by-type/logic/bands.js';
import {
  cellEdges,
  cellFromParameters,
  cellParameters,
  toCartesian,
  toFractional,
  type Cell,
  type Vec3,
} from '../web/src/by-type/logic/cell.js';
import { bondPairs } from '../web/src/by-type/logic/bonds.js';
import { cifStructure, cifTokens, elementOf, symmetryOperation } from '../web/src/by-type/logic/cif.js';
import { viewKind } from '../web/src/by-type/logic/choose.js';
import { filenameQuery, quotedParam } from '../web/src/by-type/logic/files.js';
import { emptyGraph, mergeTree, moreMarkers, type TreeAnswer } from '../web/src/by-type/logic/graph.js';
import { kpointLabels, kpointsMesh, meshText } from '../web/src/by-type/logic/kpoints.js';
import { processStatus } from '../web/src/by-type/logic/process.js';
import { niceTicks, zoomed } from '../web/src/by-type/logic/scale.js';
import { densityOf, kindsSplitElements, symmetryCell } from '../web/src/by-type/logic/symmetry.js';
import { poscar, viewAlong } from '../web/src/by-type/logic/poscar.js';
import { crystalFromAttributes, hillFormula, siteComposition } from '../web/src/by-type/logic/structure.js';
import { appOn } from './helpers.js';
import { richFile } from './conformance/corpus.js';

const fcc: Cell = [
  [0, 2.715, 2.715],
  [2.715, 0, 2.715],
  [2.715, 2.715, 0],
];

describe('cell geometry', () => {
  it('gives lengths, angles and volume of a primitive fcc cell', () => {
    const p = cellParameters(fcc);
    for (const l of [p.a, p.b, p.c]) expect(l).toBeCloseTo(2.715 * Math.SQRT2, 10);
    for (const g of [p.alpha, p.beta, p.gamma]) expect(g).toBeCloseTo(60, 10);
    expect(p.volume).toBeCloseTo(2 * 2.715 ** 3, 10);
  });

  it('builds a cell back from its parameters with the same parameters, and converts coordinates both ways', () => {
    const cell = cellFromParameters(5.1, 6.2, 7.3, 80, 95, 110);
    const p = cellParameters(cell);
    expect([p.a, p.b, p.c, p.alpha, p.beta, p.gamma].map((v) => Number(v.toFixed(9)))).toEqual([
      5.1, 6.2, 7.3, 80, 95, 110,
    ]);
    const r = toCartesian(cell, [0.25, 0.5, 0.75]);
    expect(toFractional(cell, r)!.map((v) => Number(v.toFixed(12)))).toEqual([0.25, 0.5, 0.75]);
  });

  it('has no fractional coordinates in a singular cell, and 12 edges', () => {
    expect(
      toFractional(
        [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 0],
        ],
        [1, 1, 1],
      ),
    ).toBeUndefined();
    expect(cellEdges(fcc)).toHaveLength(12);
  });
});

describe('structures', () => {
  it('gives a symmetry finder kinds or elements as species, and says when kinds split an element', () => {
    const cubic: Cell = [
      [2.87, 0, 0],
      [0, 2.87, 0],
      [0, 0, 2.87],
    ];
    const afm = crystalFromAttributes({
      cell: cubic,
      kinds: [
        { name: 'Fe1', symbols: ['Fe'], weights: [1] },
        { name: 'Fe2', symbols: ['Fe'], weights: [1] },
      ],
      sites: [
        { kind_name: 'Fe1', position: [0, 0, 0] },
        { kind_name: 'Fe2', position: [1.435, 1.435, 1.435] },
      ],
    });
    expect(kindsSplitElements(afm)).toBe(true);
    expect(symmetryCell(afm).numbers).toEqual([1, 2]);
    expect(symmetryCell(afm, 'element').numbers).toEqual([1, 1]);
    expect(symmetryCell(afm).lattice.basis).toEqual([2.87, 0, 0, 0, 2.87, 0, 0, 0, 2.87]);
    const salt = crystalFromAttributes({
      cell: cubic,
      kinds: [
        { name: 'Na', symbols: ['Na'], weights: [1] },
        { name: 'Cl', symbols: ['Cl'], weights: [1] },
      ],
      sites: [
        { kind_name: 'Na', position: [0, 0, 0] },
        { kind_name: 'Cl', position: [1.435, 1.435, 1.435] },
        { kind_name: 'Na', position: [1.435, 0, 0] },
      ],
    });
    expect(kindsSplitElements(salt)).toBe(false);
    expect(symmetryCell(salt, 'element').numbers).toEqual(symmetryCell(salt).numbers);
  });

  it('reads kinds with alloys and vacancies', () => {
    const crystal = crystalFromAttributes({
      cell: fcc,
      pbc1: true,
      pbc2: true,
      pbc3: false,
      kinds: [
        { name: 'FeNi', symbols: ['Fe', 'Ni'], weights: [0.5, 0.4], mass: 57 },
        { name: 'Si', symbols: ['Si'], weights: [1] },
      ],
      sites: [
        { kind_name: 'FeNi', position: [0, 0, 0] },
        { kind_name: 'Si', position: [1.3575, 1.3575, 1.3575] },
      ],
    });
    expect(crystal.pbc).toEqual([true, true, false]);
    expect(crystal.sites.map(siteComposition)).toEqual(['Fe0.50Ni0.40+vacancy', 'Si']);
    expect(crystal.sites[1]!.fractional!.map((v) => Number(v.toFixed(12)))).toEqual([0.25, 0.25, 0.25]);
  });

  it('says what is missing from attributes that are not a structure', () => {
    expect(() => crystalFromAttributes({ value: 1 })).toThrow(/cell/);
    expect(() =>
      crystalFromAttributes({ cell: fcc, kinds: [], sites: [{ kind_name: 'X', position: [0, 0, 0] }] }),
    ).toThrow(/kind "X"/);
  });

  it('writes Hill formulas', () => {
    expect(hillFormula(['O', 'H', 'C', 'H', 'C'])).toBe('C2H2O');
    expect(hillFormula(['Na', 'Cl'])).toBe('ClNa');
    expect(hillFormula(['Si', 'Si'])).toBe('Si2');
  });
});

describe('bonds', () => {
  const radius = (symbol: string) => ({ Si: 1.11, O: 0.73, H: 0.37 })[symbol] ?? 0;
  it('bonds diamond silicon to its four neighbours and nothing farther', () => {
    // The conventional cell's 8 atoms of diamond Si (a = 5.43 Å): each has 4 neighbours at 2.35 Å.
    const a = 5.43;
    const fractional = [
      [0, 0, 0],
      [0, 0.5, 0.5],
      [0.5, 0, 0.5],
      [0.5, 0.5, 0],
      [0.25, 0.25, 0.25],
      [0.25, 0.75, 0.75],
      [0.75, 0.25, 0.75],
      [0.75, 0.75, 0.25],
    ];
    const atoms = fractional.map((f) => ({
      symbol: 'Si',
      position: f.map((x) => x * a) as [number, number, number],
    }));
    const pairs = bondPairs(atoms, radius);
    // Inside the one cell drawn (no periodic images): the atom at ¼¼¼ has all four neighbours, the three others
    // one each (the face centre they share with it).
    expect(pairs).toHaveLength(7);
    expect(pairs.filter((p) => p.includes(4))).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    for (const [i, j] of pairs) expect(i).toBeLessThan(j);
    // 1.0 of the radii sum (2.22 Å) is shorter than the Si-Si distance: no bond at all.
    expect(bondPairs(atoms, radius, 1)).toEqual([]);
  });
  it('finds the same pairs as comparing every two atoms, at any position', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 12 - 6;
    const symbols = ['Si', 'O', 'H'];
    const atoms = Array.from({ length: 300 }, (_, i) => ({
      symbol: symbols[i % 3]!,
      position: [random(), random(), random()] as [number, number, number],
    }));
    const brute: [number, number][] = [];
    for (let i = 0; i < atoms.length; i++)
      for (let j = i + 1; j < atoms.length; j++) {
        const d = Math.hypot(...atoms[i]!.position.map((x, k) => x - atoms[j]!.position[k]!));
        if (d >= 0.4 && d <= (radius(atoms[i]!.symbol) + radius(atoms[j]!.symbol)) * 1.15) brute.push([i, j]);
      }
    expect(brute.length).toBeGreaterThan(20);
    const sorted = bondPairs(atoms, radius).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    expect(sorted).toEqual(brute);
  });
});

describe('CIF', () => {
  it('tokenizes quotes, text fields and comments', () => {
    expect(cifTokens("_a 'it''s x' # note\n_b \"q\"\n;\nline 1\nline 2\n;\n_c 3.1(2)")).toEqual([
      '_a',
      "it''s x",
      '_b',
      'q',
      'line 1\nline 2',
      '_c',
      '3.1(2)',
    ]);
  });

  it('applies symmetry operations', () => {
    expect(symmetryOperation('-x+1/2, y, z+1/4')([0.1, 0.2, 0.3])).toEqual([0.4, 0.2, 0.55]);
    expect(symmetryOperation('x-y,x,z+0.5')([0.5, 0.25, 0])).toEqual([0.25, 0.5, 0.5]);
    expect(() => symmetryOperation('x,y')).toThrow(/three parts/);
    expect(elementOf('Si1')).toBe('Si');
    expect(elementOf('O2-')).toBe('O');
  });

  it('expands a space group to the whole unit cell (diamond Si: 8 atoms)', () => {
    const ops = [
      'x,y,z',
      'x,y+1/2,z+1/2',
      'x+1/2,y,z+1/2',
      'x+1/2,y+1/2,z',
      '-x+1/4,-y+1/4,-z+1/4',
      '-x+1/4,-y+3/4,-z+3/4',
      '-x+3/4,-y+1/4,-z+3/4',
      '-x+3/4,-y+3/4,-z+1/4',
    ];
    const text = `data_si\n_cell_length_a 5.43\n_cell_length_b 5.43\n_cell_length_c 5.43\n_cell_angle_alpha 90\n_cell_angle_beta 90\n_cell_angle_gamma 90\nloop_\n_symmetry_equiv_pos_as_xyz\n${ops.map((o) => `'${o}'`).join('\n')}\nloop_\n_atom_site_label\n_atom_site_fract_x\n_atom_site_fract_y\n_atom_site_fract_z\nSi1 0 0 0\n`;
    const s = cifStructure(text);
    expect(s.listed).toHaveLength(1);
    expect(s.unitCell).toHaveLength(8);
    expect(s.lengths).toEqual([5.43, 5.43, 5.43]);
  });

  it('names what a CIF lacks', () => {
    expect(() => cifStructure('no block here')).toThrow(/data_/);
    expect(() => cifStructure('data_x\n_cell_length_a 1\n')).toThrow(/cell lengths/);
  });
});

describe('band structures', () => {
  const paths = (segments: Array<[string, string, number[]]>): BandsJson => ({
    paths: segments.map(([from, to, x]) => ({
      from,
      to,
      x,
      values: [x.map((v) => v * 2), x.map((v) => -v)],
    })),
  });

  it('puts each label at its position and joins the two labels of a discontinuity', () => {
    const json = paths([
      ['G', 'X', [0, 0.5, 1]],
      ['X', 'W', [1, 1.5]],
      ['K', 'G', [1.5, 2]],
    ]);
    expect(bandTicks(json.paths)).toEqual([
      { x: 0, label: 'G' },
      { x: 1, label: 'X' },
      { x: 1.5, label: 'W|K' },
      { x: 2, label: 'G' },
    ]);
    expect(displayLabel('W|GAMMA')).toBe('W|Γ');
  });

  it('makes one line per band and path, and the ranges of the data', () => {
    const plot = bandsPlot(paths([['G', 'X', [0, 1]]]));
    expect(plot.lines).toHaveLength(2);
    expect(plot.bandCount).toBe(2);
    expect(plot.x).toEqual([0, 1]);
    expect(plot.y).toEqual([-1, 2]);
    expect(isBandsJson({ paths: [{ x: [] }] })).toBe(false);
  });
});

describe('k-points, arrays, processes, files, scales', () => {
  it('reads a mesh and labels', () => {
    const mesh = kpointsMesh({ mesh: [8, 8, 8], offset: [0.5, 0.5, 0.5] })!;
    expect(mesh.count).toBe(512);
    expect(meshText(mesh)).toBe('8 × 8 × 8, offset (0.5, 0.5, 0.5)');
    expect(kpointsMesh({ 'array|kpoints': [6, 3] })).toBeUndefined();
    const labels = kpointLabels({ labels: ['G', 'X', 'U', 'K'], label_numbers: [0, 5, 9, 9] }, 10);
    expect([...labels]).toEqual([
      [0, 'G'],
      [5, 'X'],
      [9, 'U|K'],
    ]);
  });

  it('lists arrays and shapes tables', () => {
    expect(arrayInfos({ 'array|b': [3, 4], 'array|a': [2], symbols: ['Si'] })).toEqual([
      { name: 'a', shape: [2], size: 2 },
      { name: 'b', shape: [3, 4], size: 12 },
    ]);
    expect(tableRows([1, 2]).map((r) => r.index)).toEqual(['0', '1']);
    expect(tableRows([[[1, 2]], [[3, 4]]])).toEqual([
      { index: '[0, 0]', cells: [1, 2] },
      { index: '[1, 0]', cells: [3, 4] },
    ]);
    expect([formatNumber(3), formatNumber(0.123456789), formatNumber(7.7e-8)]).toEqual([
      '3',
      '0.123457',
      '7.7000e-8',
    ]);
    expect(scientific(7.7483353864736e-8)).toEqual({ mantissa: '7.7483353864736', exponent: -8 });
    expect(scientific(-2.5e9)).toEqual({ mantissa: '-2.5', exponent: 9 });
    expect([scientific(0.5), scientific(0), scientific(123456)]).toEqual([undefined, undefined, undefined]);
    const xy = xySeries(
      { x_name: 'energy', x_units: 'eV', y_names: ['dos'], y_units: ['states/eV'] },
      { x_array: [0, 1], y_array_0: [2, 3] },
    )!;
    expect(xy.ys).toEqual([{ name: 'dos', unit: 'states/eV', values: [2, 3] }]);
  });

  it('takes one step of a trajectory, with its cell when stored', () => {
    const values = {
      positions: [
        [
          [0, 0, 0],
          [1, 1, 1],
        ],
        [
          [0.1, 0, 0],
          [1.1, 1, 1],
        ],
      ],
      cells: [fcc, fcc],
    };
    const frame = trajectoryFrame(values, ['Na', 'Cl'], 1)!;
    expect(frame.atoms).toEqual([
      { symbol: 'Na', position: [0.1, 0, 0] },
      { symbol: 'Cl', position: [1.1, 1, 1] },
    ]);
    expect(frame.cell).toEqual(fcc);
    expect(trajectoryFrame(values, ['Na', 'Cl'], 2)).toBeUndefined();
    expect(trajectoryFrame({ positions: values.positions }, [], 0)!.cell).toBeUndefined();
  });

  it('colours process states', () => {
    expect(processStatus({ process_state: 'finished', exit_status: 0 }).tone).toBe('ok');
    const failed = processStatus({ process_state: 'finished', exit_status: 305, exit_message: 'ERROR_X' });
    expect([failed.tone, failed.summary]).toEqual(['failed', 'Finished [305] ERROR_X']);
    expect(processStatus({ process_state: 'excepted' }).tone).toBe('failed');
    expect(processStatus({ process_state: 'waiting' }).tone).toBe('waiting');
    expect(processStatus({}).state).toBe('unknown');
  });

  it('quotes and encodes query values', () => {
    expect(filenameQuery('out/a b.txt')).toBe('filename=%22out%2Fa%20b.txt%22');
    expect(quotedParam('full_type', 'process.%|%')).toBe('full_type=%22process.%25%7C%25%22');
  });

  it('chooses round ticks', () => {
    expect(niceTicks(-7.3, 6.9, 6)).toEqual([-6, -4, -2, 0, 2, 4, 6]);
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('zooms about the centre, out no further than the whole plot and never past its ends', () => {
    expect(zoomed([0, 10], 0.5, [0, 10])).toEqual([2.5, 7.5]);
    expect(zoomed([2.5, 7.5], 2, [0, 10])).toEqual([0, 10]);
    expect(zoomed([0, 10], 4, [0, 10])).toEqual([0, 10]);
    // Near an end, zooming out slides the window back inside the plot.
    expect(zoomed([8, 10], 2, [0, 10])).toEqual([6, 10]);
    expect(zoomed([-1, 1], 2, [-1, 10])).toEqual([-1, 3]);
  });
});

describe('choosing a view by node type', () => {
  it('maps every type of the rich archive that has a view', () => {
    const cases: Array<[string, string | undefined]> = [
      ['data.core.structure.StructureData.', 'structure'],
      ['data.core.cif.CifData.', 'cif'],
      ['data.core.array.bands.BandsData.', 'bands'],
      ['data.core.array.kpoints.KpointsData.', 'kpoints'],
      ['data.core.array.trajectory.TrajectoryData.', 'trajectory'],
      ['data.core.array.xy.XyData.', 'xy'],
      ['data.core.array.ArrayData.', 'array'],
      ['data.core.upf.UpfData.', 'upf'],
      ['data.core.dict.Dict.', 'value'],
      ['data.core.bool.Bool.', 'value'],
      ['data.core.code.installed.InstalledCode.', 'code'],
      ['data.core.code.Code.', 'code'],
      ['data.core.remote.RemoteData.', 'remote'],
      ['process.calculation.calcjob.CalcJobNode.', 'process'],
      ['process.workflow.workchain.WorkChainNode.', 'process'],
      ['process.workflow.workfunction.WorkFunctionNode.', 'process'],
      ['process.calculation.calcfunction.CalcFunctionNode.', 'process'],
      ['process.process.ProcessNode.', 'process'],
      ['data.array.kpoints.KpointsData.', 'kpoints'],
      ['data.structure.StructureData.', 'structure'],
      ['data.quantumespresso.force_constants.ForceConstantsData.', undefined],
      ['data.core.folder.FolderData.', undefined],
      ['data.Data.', undefined],
      ['', undefined],
    ];
    for (const [type, kind] of cases) expect([type, viewKind(type)]).toEqual([type, kind]);
  });
});

describe('provenance graph', () => {
  const tree = (centre: string, incoming: string[], outgoing: string[], total = 0): TreeAnswer => ({
    nodes: [
      {
        uuid: centre,
        node_type: 'process.calculation.calcjob.CalcJobNode.',
        id: 1,
        incoming: incoming.map((u) => ({
          uuid: u,
          node_type: 'data.core.dict.Dict.',
          link_label: 'p',
          link_type: 'input_calc',
        })),
        outgoing: outgoing.map((u) => ({
          uuid: u,
          node_type: 'data.core.int.Int.',
          link_label: 'r',
          link_type: 'create',
        })),
      },
    ],
    metadata: [{ total_no_of_incomings: incoming.length + total, sent_no_of_incomings: incoming.length }],
  });

  it('merges neighbourhoods without duplicates and counts what the server left out', () => {
    const g = emptyGraph();
    expect(mergeTree(g, tree('c', ['a', 'b'], ['d'], 5))).toEqual(['c', 'a', 'b', 'd']);
    expect(g.edges.size).toBe(3);
    expect(g.omitted.get('c')).toEqual({ incoming: 5, outgoing: 0 });
    // Expanding a neighbour adds only what is new; its edge back to the centre is the same edge.
    const back: TreeAnswer = {
      nodes: [
        {
          uuid: 'a',
          node_type: 'data.core.dict.Dict.',
          outgoing: [
            {
              uuid: 'c',
              node_type: 'process.calculation.calcjob.CalcJobNode.',
              link_label: 'p',
              link_type: 'input_calc',
            },
            {
              uuid: 'e',
              node_type: 'process.workflow.workchain.WorkChainNode.',
              link_label: 'q',
              link_type: 'input_work',
            },
          ],
        },
      ],
    };
    expect(mergeTree(g, back)).toEqual(['e']);
    expect(g.edges.size).toBe(4);
    expect(g.nodes.get('a')!.expanded).toBe(true);
    expect(g.nodes.get('e')!.family).toBe('workflow');
  });

  it('marks what the server left out with one "N more" per node and direction', () => {
    const g = emptyGraph();
    mergeTree(g, tree('c', ['a', 'b'], ['d'], 17_592));
    mergeTree(g, tree('d', ['c'], [], 0));
    expect(moreMarkers(g)).toEqual([
      { id: 'more:incoming:c', of: 'c', direction: 'incoming', count: 17_592 },
    ]);
  });
});

// The same logic on what the API answers for the rich archive: every structure, CIF and band structure in it.
const rich = richFile('rich.aiida');

describe('on the rich conformance archive', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  const get = async (url: string) => {
    const r = await served.app.inject({ method: 'GET', url: `/api/v4${url}` });
    expect(r.statusCode, url).toBe(200);
    return r;
  };
  const data = async <T>(url: string) => (JSON.parse((await get(url)).body) as { data: T }).data;
  const uuids = async (fullType: string) =>
    (
      await data<{ nodes: Array<{ uuid: string }> }>(
        `/nodes/?full_type=${encodeURIComponent(`"${fullType}|"`)}`,
      )
    ).nodes.map((n) => n.uuid);

  beforeAll(async () => {
    served = await appOn(rich);
  });
  afterAll(async () => {
    await served?.close();
  });

  it('reads each structure as its CIF download says: cell, sites and formula agree', async () => {
    const list = await uuids('data.core.structure.StructureData.');
    expect(list.length).toBe(73);
    let compared = 0;
    for (const uuid of list) {
      const attributes = (
        await data<{ attributes: Record<string, unknown> }>(`/nodes/${uuid}/contents/attributes/`)
      ).attributes;
      const derived = (
        await data<{
          derived_properties: { formula?: string; dimensionality?: { dim: number; value: number } };
        }>(`/nodes/${uuid}/contents/derived_properties/`)
      ).derived_properties;
      const crystal = crystalFromAttributes(attributes);
      const p = cellParameters(crystal.cell);
      if (derived.dimensionality?.dim === 3) expect(p.volume).toBeCloseTo(derived.dimensionality.value, 6);
      const alloyed = crystal.sites.some((s) => siteComposition(s) !== s.symbols[0]);
      if (alloyed || p.volume < 1e-6) continue;
      const cif = await served.app.inject({
        method: 'GET',
        url: `/api/v4/nodes/${uuid}/download/?download_format=cif`,
      });
      expect(cif.statusCode).toBe(200);
      const s = cifStructure(cif.body);
      expect(s.lengths.map((v) => v.toFixed(4))).toEqual([p.a, p.b, p.c].map((v) => v.toFixed(4)));
      expect(s.angles.map((v) => v.toFixed(3))).toEqual([p.alpha, p.beta, p.gamma].map((v) => v.toFixed(3)));
      expect(s.unitCell.length).toBe(crystal.sites.length);
      expect(hillFormula(s.unitCell.map((u) => u.symbol))).toBe(derived.formula);
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('reads every CifData file of the archive into a unit cell', async () => {
    for (const uuid of await uuids('data.core.cif.CifData.')) {
      const text = (
        await data<{ download: { data: string } }>(
          `/nodes/${uuid}/download/?download_format=cif&download=false`,
        )
      ).download.data;
      const s = cifStructure(text);
      expect(s.unitCell.length, uuid).toBeGreaterThan(0);
      expect(s.listed.length, uuid).toBeLessThanOrEqual(s.unitCell.length);
    }
  });

  it('labels each band structure at the k-points its attributes name', async () => {
    const list = await uuids('data.core.array.bands.BandsData.');
    expect(list.length).toBe(36);
    for (const uuid of list) {
      const json = JSON.parse((await get(`/nodes/${uuid}/download/?download_format=json`)).body) as unknown;
      expect(isBandsJson(json)).toBe(true);
      const attributes = (
        await data<{ attributes: Record<string, unknown> }>(`/nodes/${uuid}/contents/attributes/`)
      ).attributes;
      const plot = bandsPlot(json as BandsJson);
      const shape = attributes['array|bands'] as number[];
      expect(plot.bandCount, uuid).toBe(shape[shape.length - 1]);
      const labels = attributes.labels as string[] | undefined;
      if (!labels?.length) continue;
      // Labels at consecutive k-point indices mark a jump in the path: one tick reading "X|K".
      const numbers = attributes.label_numbers as number[];
      const expected: string[] = [];
      numbers.forEach((n, i) => {
        if (i > 0 && n === numbers[i - 1]! + 1) expected[expected.length - 1] += `|${labels[i]}`;
        else expected.push(labels[i]!);
      });
      expect(
        plot.ticks.map((t) => t.label),
        uuid,
      ).toEqual(expected);
    }
  });
});

describe('density', () => {
  const attributes = (symbols: [string, number][]) => ({
    kinds: symbols.map(([name, mass]) => ({ name, symbols: [name], weights: [1], mass })),
    sites: symbols.map(([name]) => ({ kind_name: name })),
  });
  it("is a bulk crystal's mass per volume, a sheet's mass per area of its plane, none for 0D or 1D", () => {
    // Graphene: 2 C on a hexagonal plane of a = 2.46 Å, with 20 Å of vacuum: 0.76 mg/m², whatever the vacuum.
    const a = 2.46;
    const sheet = (vacuum: number): Cell => [
      [a, 0, 0],
      [-a / 2, (a * Math.sqrt(3)) / 2, 0],
      [0, 0, vacuum],
    ];
    const graphene = attributes([
      ['C', 12.011],
      ['C', 12.011],
    ]);
    const flat = densityOf(graphene, sheet(20), [true, true, false])!;
    expect(flat.unit).toBe('mg/m²');
    expect(flat.value).toBeCloseTo(0.761, 2);
    expect(densityOf(graphene, sheet(40), [true, true, false])!.value).toBeCloseTo(flat.value, 10);
    expect(densityOf(graphene, sheet(20), [true, false, false])).toBeUndefined();
    expect(densityOf(graphene, sheet(20), [false, false, false])).toBeUndefined();
    // Bulk silicon (8 atoms in a cube of 5.431 Å): 2.329 g/cm³.
    const si = attributes(Array.from({ length: 8 }, () => ['Si', 28.0855] as [string, number]));
    const cube: Cell = [
      [5.431, 0, 0],
      [0, 5.431, 0],
      [0, 0, 5.431],
    ];
    const bulk = densityOf(si, cube, [true, true, true])!;
    expect(bulk.unit).toBe('g/cm³');
    expect(bulk.value).toBeCloseTo(2.329, 3);
  });
});

describe('POSCAR and views along the cell', () => {
  it('writes the cell, the species in order of appearance, their counts and the positions grouped', () => {
    const cell: Cell = [
      [4, 0, 0],
      [0, 4, 0],
      [0, 0, 5],
    ];
    const text = poscar('NaCl  rock\nsalt', cell, [
      { symbol: 'Na', position: [0, 0, 0] },
      { symbol: 'Cl', position: [2, 2, 2.5] },
      { symbol: 'Na', position: [2, 2, 0] },
    ]);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('NaCl rock salt');
    expect(lines[1]).toBe('1.0');
    expect(lines[2]!.trim().split(/\s+/).map(Number)).toEqual([4, 0, 0]);
    expect(lines.slice(5, 8)).toEqual(['Na Cl', '2 1', 'Cartesian']);
    expect(lines.slice(8).map((l) => l.trim().split(/\s+/).map(Number))).toEqual([
      [0, 0, 0],
      [2, 2, 0],
      [2, 2, 2.5],
    ]);
  });

  it('turns each cell vector into the screen (-z)', () => {
    const rotate = ([x, y, z, w]: number[], v: Vec3): Vec3 => {
      // v' = q v q*, for a unit quaternion.
      const t = [2 * (y! * v[2] - z! * v[1]), 2 * (z! * v[0] - x! * v[2]), 2 * (x! * v[1] - y! * v[0])];
      return [
        v[0] + w! * t[0]! + (y! * t[2]! - z! * t[1]!),
        v[1] + w! * t[1]! + (z! * t[0]! - x! * t[2]!),
        v[2] + w! * t[2]! + (x! * t[1]! - y! * t[0]!),
      ];
    };
    for (const v of [
      [3, 0, 0],
      [0, 2, 0],
      [0, 0, 7],
      [0, 0, -1],
      [1, 1, 1],
    ] as Vec3[]) {
      const turned = rotate(viewAlong(v), v);
      const length = Math.hypot(...v);
      expect(turned[0]).toBeCloseTo(0, 9);
      expect(turned[1]).toBeCloseTo(0, 9);
      expect(turned[2]).toBeCloseTo(-length, 9);
    }
  });
});
