/** Units of process provenance: a relaxation workflow around a pw.x calcjob, and arithmetic calcfunctions. */
import type { GraphBuilder } from './builder.js';
import { PROCESS_STATES, PW_PARAMETERS, STRUCTURES, USERS } from './catalog.js';
import { functionSource, npy, pwInput, pwOutput, submitScript, upfFile } from './files.js';
import type { Rng } from './prng.js';
import {
  CALCFUNCTION,
  CALCJOB,
  round,
  structureAttributes,
  WORKCHAIN,
  WORKFUNCTION,
  type Shared,
} from './setup.js';

function processState(rng: Rng) {
  let r = rng.int(
    1,
    PROCESS_STATES.reduce((n, s) => n + s.weight, 0),
  );
  for (const s of PROCESS_STATES) if ((r -= s.weight) <= 0) return s;
  return PROCESS_STATES[0]!;
}

/** A relaxation workflow: inputs, a workchain calling a pw.x calcjob, its outputs, and what it returns. */
export function pwWorkflow(b: GraphBuilder, rng: Rng, shared: Shared) {
  const userId = rng.chance(0.7) ? 1 : 2;
  const t = rng.pick(STRUCTURES);
  const scale = rng.pick([0.98, 0.99, 1.0, 1.01, 1.02]);
  const structure = b.addNode({
    nodeType: 'data.core.structure.StructureData.',
    label: t.label,
    attributes: structureAttributes(t, scale),
    userId,
    extras: rng.chance(0.2) ? { tags: ['pbe', rng.pick(['test', 'production'])] } : {},
  });
  b.addToGroup(shared.groups.structures, structure.id);
  const params = rng.pick(PW_PARAMETERS);
  const parameters = b.addNode({ nodeType: 'data.core.dict.Dict.', attributes: params, userId });
  const mesh = rng.pick([
    [2, 2, 2],
    [4, 4, 4],
    [6, 6, 6],
  ]);
  const kpoints = b.addNode({
    nodeType: 'data.core.array.kpoints.KpointsData.',
    label: `mesh ${JSON.stringify(mesh)}`,
    attributes: {
      cell: structureAttributes(t, scale).cell,
      mesh,
      pbc1: true,
      pbc2: true,
      pbc3: true,
      offset: [0.0, 0.0, 0.0],
    },
    userId,
  });
  const state = processState(rng);
  const processAttrs = (label: string) => ({
    sealed: !['waiting', 'running'].includes(state.state),
    process_label: label,
    process_state: state.state,
    ...(state.exit !== undefined ? { exit_status: state.exit } : {}),
  });
  const workchain = b.addNode({
    nodeType: WORKCHAIN,
    processType: 'aiida.workflows:quantumespresso.pw.relax',
    label: 'relax',
    attributes: { ...processAttrs('PwRelaxWorkChain'), stepper_state_info: '4:run_process' },
    userId,
  });
  b.addToGroup(shared.groups.workflows, workchain.id);
  const inputs = [
    ['structure', structure.id],
    ['parameters', parameters.id],
    ['kpoints', kpoints.id],
    ['code', shared.codes.pw],
  ] as const;
  for (const [label, id] of inputs) b.addLink(id, workchain.id, 'input_work', label);
  const symbols = t.sites.map((s) => s.symbol);
  const calc = b.addNode({
    nodeType: CALCJOB,
    processType: 'aiida.calculations:quantumespresso.pw',
    label: `${params.calculation}-${rng.int(0, 9)}`,
    computerId: 2,
    userId,
    attributes: {
      ...processAttrs('PwCalculation'),
      ...(state.message !== undefined ? { exit_message: state.message } : {}),
      job_id: String(rng.int(1_000_000, 9_999_999)),
      resources: { num_machines: 1, num_mpiprocs_per_machine: 36 },
      parser_name: 'quantumespresso.pw',
      scheduler_state: state.state === 'finished' ? 'done' : state.state === 'running' ? 'running' : 'queued',
      retrieve_list: ['aiida.out', '_scheduler-stdout.txt', '_scheduler-stderr.txt'],
      input_filename: 'aiida.in',
      output_filename: 'aiida.out',
      remote_workdir: `/scratch/snx3000/aiida/${rng.int(10, 99)}/${rng.int(1000, 9999)}`,
      max_wallclock_seconds: 43200,
      withmpi: true,
    },
    files: {
      'aiida.in': pwInput(params, symbols, mesh),
      '_aiidasubmit.sh': submitScript('aiida-pw', 'srun', '/apps/qe/7.2/bin/pw.x'),
      '.aiida/calcinfo.json': JSON.stringify({
        codes_info: [{ code_uuid: 'pw-7.2', stdin_name: 'aiida.in', stdout_name: 'aiida.out' }],
        retrieve_list: ['aiida.out'],
      }),
      '.aiida/job_tmpl.json': JSON.stringify({
        job_name: 'aiida-pw',
        max_wallclock_seconds: 43200,
        shebang: '#!/bin/bash',
      }),
      ...Object.fromEntries(
        [...new Set(symbols)].map((s) => [`pseudo/${s}.pbe-n-rrkjus_psl.1.0.0.UPF`, upfFile(s, 'PBE')]),
      ),
    },
  });
  b.addLink(workchain.id, calc.id, 'call_calc', 'iteration_01');
  for (const [label, id] of inputs) b.addLink(id, calc.id, 'input_calc', label);
  for (const element of new Set(symbols))
    b.addLink(shared.pseudos.get(element)!, calc.id, 'input_calc', `pseudos__${element}`);
  b.addLog(
    calc.id,
    'aiida.orm.nodes.process.calculation.calcjob.CalcJobNode',
    'REPORT',
    `[${calc.id}|PwCalculation|on_waiting]: scheduler job id ${rng.int(1_000_000, 9_999_999)}`,
    calc.ctime + 1000,
  );
  if (state.state !== 'finished') return;
  if (state.exit === 0) b.addToGroup(shared.groups.finished, calc.id);
  else
    b.addLog(
      calc.id,
      'aiida.orm.nodes.process.calculation.calcjob.CalcJobNode',
      'ERROR',
      `[${calc.id}|PwCalculation|parse]: ERROR_OUTPUT_STDOUT_INCOMPLETE: The stdout output file was incomplete.`,
      calc.ctime + 2000,
    );
  const energy = -15.8 - rng.int(0, 40) / 100;
  const outputs: [string, number][] = [];
  const out = (label: string, spec: Parameters<GraphBuilder['addNode']>[0]) => {
    const id = b.addNode(spec).id;
    b.addLink(calc.id, id, 'create', label);
    outputs.push([label, id]);
  };
  out('remote_folder', {
    nodeType: 'data.core.remote.RemoteData.',
    attributes: { remote_path: `/scratch/snx3000/aiida/${calc.id}` },
    computerId: 2,
    userId,
  });
  out('retrieved', {
    nodeType: 'data.core.folder.FolderData.',
    userId,
    files: {
      'aiida.out': pwOutput(energy, rng.int(5, 12)),
      '_scheduler-stdout.txt': '',
      '_scheduler-stderr.txt': '',
    },
  });
  out('output_parameters', {
    nodeType: 'data.core.dict.Dict.',
    userId,
    attributes: {
      energy: energy * 13.605693,
      energy_units: 'eV',
      wall_time_seconds: rng.int(30, 4000),
      number_of_atoms: symbols.length,
      // Among the second and third of the generated bands (bands() below), as pw.x reports it for a metal;
      // derived from the energy so that the random stream, and so the rest of the archive, stays as it was.
      fermi_energy: round(energy + 13.6),
      fermi_energy_units: 'eV',
    },
  });
  if (rng.chance(0.3))
    out('output_band', {
      nodeType: 'data.core.array.bands.BandsData.',
      label: `bands ${t.label}`,
      userId,
      ...bands(rng),
    });
  if (params.calculation !== 'scf')
    out('output_structure', {
      nodeType: 'data.core.structure.StructureData.',
      label: t.label,
      userId,
      attributes: structureAttributes(t, scale * 1.001),
    });
  if (state.exit === 0)
    for (const [label, id] of outputs.filter(([l]) => l !== 'remote_folder' && l !== 'retrieved'))
      b.addLink(workchain.id, id, 'return', label);
  if (rng.chance(0.1))
    b.addComment(
      calc.id,
      rng.pick(USERS).id,
      rng.pick(['converged nicely', 'check the smearing', 'used for the paper']),
      calc.ctime + 5000,
    );
}

function bands(rng: Rng) {
  const variant = rng.int(0, 9);
  const nk = 30;
  const nb = 6;
  const kpoints: number[] = [];
  const values: number[] = [];
  for (let k = 0; k < nk; k++) {
    kpoints.push(k / (nk - 1) / 2, 0, 0);
    for (let n = 0; n < nb; n++)
      values.push(round(-6 + 2.5 * n + Math.cos((Math.PI * k) / (nk - 1) + n + variant) * (1 + n / 3)));
  }
  return {
    attributes: {
      cell: STRUCTURES[0]!.cell,
      pbc1: true,
      pbc2: true,
      pbc3: true,
      units: 'eV',
      labels: ['G', 'X'],
      label_numbers: [0, nk - 1],
      'array|bands': [nk, nb],
      'array|kpoints': [nk, 3],
    },
    files: { 'bands.npy': npy(values, [nk, nb]), 'kpoints.npy': npy(kpoints, [nk, 3]) },
  };
}

/** Arithmetic with calcfunctions, sometimes inside a workfunction that calls two of them. */
export function arithmetic(b: GraphBuilder, rng: Rng, shared: Shared) {
  const userId = rng.chance(0.5) ? 1 : 2;
  const x = b.addNode({
    nodeType: 'data.core.int.Int.',
    label: 'x',
    attributes: { value: rng.int(1, 100) },
    userId,
  });
  const y = b.addNode({
    nodeType: 'data.core.int.Int.',
    label: 'y',
    attributes: { value: rng.int(1, 100) },
    userId,
  });
  const fn = (name: string) => ({
    sealed: true,
    version: { core: '2.3.1' },
    exit_status: 0,
    function_name: name,
    process_label: name,
    process_state: 'finished',
    function_namespace: 'demo_procs',
    function_number_of_lines: 4,
    function_starting_line_number: 6,
  });
  const wrap = rng.chance(0.3)
    ? b.addNode({
        nodeType: WORKFUNCTION,
        processType: 'demo_procs.add_multiply',
        label: 'add_multiply',
        attributes: fn('add_multiply'),
        userId,
        files: { source_file: functionSource('add_multiply') },
      })
    : undefined;
  if (wrap) {
    b.addLink(x.id, wrap.id, 'input_work', 'x');
    b.addLink(y.id, wrap.id, 'input_work', 'y');
    b.addToGroup(shared.groups.auto, wrap.id);
  }
  for (const name of wrap ? ['add', 'multiply'] : [rng.pick(['add', 'multiply'])]) {
    const calc = b.addNode({
      nodeType: CALCFUNCTION,
      processType: `demo_procs.${name}`,
      label: name,
      attributes: fn(name),
      userId,
      files: { source_file: functionSource(name) },
    });
    b.addLink(x.id, calc.id, 'input_calc', 'x');
    b.addLink(y.id, calc.id, 'input_calc', 'y');
    const result = b.addNode({
      nodeType: 'data.core.int.Int.',
      attributes: { value: rng.int(2, 10_000) },
      userId,
    });
    b.addLink(calc.id, result.id, 'create', 'result');
    b.addToGroup(shared.groups.auto, calc.id);
    if (wrap) {
      b.addLink(wrap.id, calc.id, 'call_calc', `${name}_1`);
      b.addLink(wrap.id, result.id, 'return', name === 'add' ? 'sum' : 'product');
    }
  }
}
