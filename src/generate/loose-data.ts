/** Stand-alone data nodes of the remaining AiiDA types. */
import type { GraphBuilder } from './builder.js';
import { STRUCTURES } from './catalog.js';
import { cifFile, npy } from './files.js';
import type { Rng } from './prng.js';
import { md5ish, round, type Shared } from './setup.js';

/** Stand-alone data of the remaining types. */
export function looseData(b: GraphBuilder, rng: Rng, shared: Shared) {
  const userId = rng.chance(0.6) ? 1 : 2;
  const kind = rng.int(0, 11);
  const add = (spec: Omit<Parameters<GraphBuilder['addNode']>[0], 'userId'>) =>
    b.addNode({ ...spec, userId }).id;
  switch (kind) {
    case 0: {
      const t = rng.pick(STRUCTURES);
      const name = t.label.split(' ')[0]!;
      const content = cifFile(name, t.cell, t.sites, t.spacegroup);
      const formula = [...new Set(t.sites.map((s) => s.symbol))].join(' ');
      const id = add({
        nodeType: 'data.core.cif.CifData.',
        label: `${name}.cif`,
        attributes: {
          md5: md5ish(content),
          filename: `${name}.cif`,
          formulae: [formula],
          scan_type: 'standard',
          parse_policy: 'eager',
          spacegroup_numbers: [t.spacegroup],
        },
        files: { [`${name}.cif`]: content },
      });
      b.addToGroup(shared.groups.imported, id);
      return;
    }
    case 1:
      add({
        nodeType: 'data.core.array.ArrayData.',
        label: 'array',
        attributes: { 'array|matrix': [3, 3] },
        files: { 'matrix.npy': npy([1, 0, 0, 0, 1, 0, 0, 0, rng.int(1, 5)], [3, 3]) },
      });
      return;
    case 2: {
      const n = 5;
      const positions = Array.from({ length: n * 2 * 3 }, (_, i) =>
        round((i % 3) * 1.3575 + (Math.floor(i / 6) * rng.int(0, 9)) / 1000),
      );
      add({
        nodeType: 'data.core.array.trajectory.TrajectoryData.',
        label: 'md trajectory Si2',
        attributes: {
          symbols: ['Si', 'Si'],
          'array|cells': [n, 3, 3],
          'array|steps': [n],
          'array|times': [n],
          'array|positions': [n, 2, 3],
        },
        files: {
          'cells.npy': npy(Array.from({ length: n }, () => STRUCTURES[0]!.cell.flat()).flat(), [n, 3, 3]),
          'steps.npy': npy([0, 1, 2, 3, 4], [n], '<i8'),
          'times.npy': npy([0, 0.5, 1, 1.5, 2], [n]),
          'positions.npy': npy(positions, [n, 2, 3]),
        },
      });
      return;
    }
    case 3: {
      const x = Array.from({ length: 20 }, (_, i) => -5 + i * 0.5);
      add({
        nodeType: 'data.core.array.xy.XyData.',
        label: 'DOS',
        attributes: {
          x_name: 'energy',
          x_units: 'eV',
          y_names: ['dos'],
          y_units: ['states/eV'],
          'array|x_array': [20],
          'array|y_array_0': [20],
        },
        files: {
          'x_array.npy': npy(x, [20]),
          'y_array_0.npy': npy(
            x.map((e) => round(Math.exp((-e * e) / 4))),
            [20],
          ),
        },
      });
      return;
    }
    case 4:
      add({
        nodeType: 'data.core.list.List.',
        label: 'input list',
        attributes: { list: [rng.int(1, 9), rng.int(1, 9), rng.int(1, 9)] },
      });
      return;
    case 5:
      add({
        nodeType: 'data.core.str.Str.',
        attributes: { value: rng.pick(['scf', 'relax', 'bands', 'nscf']) },
      });
      return;
    case 6:
      add({ nodeType: 'data.core.bool.Bool.', attributes: { value: rng.chance(0.5) } });
      return;
    case 7:
      add({ nodeType: 'data.core.float.Float.', attributes: { value: round(rng.next() * 100) } });
      return;
    case 8:
      add({
        nodeType: 'data.core.singlefile.SinglefileData.',
        label: 'notes',
        attributes: { filename: 'notes.md' },
        files: { 'notes.md': `# Notes\n\nRun ${rng.int(1, 20)} of the convergence study.\n` },
      });
      return;
    case 9:
      add({
        nodeType: 'data.core.array.kpoints.KpointsData.',
        label: 'path G-X',
        attributes: {
          'array|kpoints': [10, 3],
          labels: ['G', 'X'],
          label_numbers: [0, 9],
          cell: STRUCTURES[0]!.cell,
          pbc1: true,
          pbc2: true,
          pbc3: true,
        },
        files: {
          'kpoints.npy': npy(
            Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? Math.floor(i / 3) / 18 : 0)),
            [10, 3],
          ),
        },
      });
      return;
    case 10:
      add({
        nodeType: 'data.Data.',
        label: 'bare Data node',
        attributes: { source: { db_name: 'ICSD', id: String(rng.int(1000, 99999)), license: 'CC-BY' } },
      });
      return;
    default:
      add({
        nodeType: 'data.core.dict.Dict.',
        label: 'settings',
        attributes: { gamma_only: rng.chance(0.2), cmdline: ['-nk', String(rng.int(1, 4))] },
      });
  }
}
