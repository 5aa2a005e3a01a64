/** Fixed building blocks the scenarios draw from: structures, parameter sets, codes, computers, users. */

export interface StructureTemplate {
  label: string;
  cell: number[][];
  sites: { symbol: string; position: [number, number, number] }[];
  masses: Record<string, number>;
  spacegroup: number;
}

const cubic = (a: number): number[][] => [
  [a, 0, 0],
  [0, a, 0],
  [0, 0, a],
];
const fcc = (a: number): number[][] => [
  [0, a / 2, a / 2],
  [a / 2, 0, a / 2],
  [a / 2, a / 2, 0],
];

export const STRUCTURES: StructureTemplate[] = [
  {
    label: 'Si diamond',
    cell: fcc(5.43),
    sites: [
      { symbol: 'Si', position: [0, 0, 0] },
      { symbol: 'Si', position: [1.3575, 1.3575, 1.3575] },
    ],
    masses: { Si: 28.085 },
    spacegroup: 227,
  },
  {
    label: 'BaTiO3 cubic',
    cell: cubic(4.0),
    sites: [
      { symbol: 'Ba', position: [0, 0, 0] },
      { symbol: 'Ti', position: [2, 2, 2] },
      { symbol: 'O', position: [2, 2, 0] },
      { symbol: 'O', position: [2, 0, 2] },
      { symbol: 'O', position: [0, 2, 2] },
    ],
    masses: { Ba: 137.327, Ti: 47.867, O: 15.999 },
    spacegroup: 221,
  },
  {
    label: 'GaAs zincblende',
    cell: fcc(5.65),
    sites: [
      { symbol: 'Ga', position: [0, 0, 0] },
      { symbol: 'As', position: [1.4125, 1.4125, 1.4125] },
    ],
    masses: { Ga: 69.723, As: 74.922 },
    spacegroup: 216,
  },
  {
    label: 'NaCl rocksalt',
    cell: fcc(5.64),
    sites: [
      { symbol: 'Na', position: [0, 0, 0] },
      { symbol: 'Cl', position: [2.82, 0, 0] },
    ],
    masses: { Na: 22.99, Cl: 35.45 },
    spacegroup: 225,
  },
  {
    label: 'graphene',
    cell: [
      [2.46, 0, 0],
      [-1.23, 2.1304, 0],
      [0, 0, 20],
    ],
    sites: [
      { symbol: 'C', position: [0, 0, 10] },
      { symbol: 'C', position: [0, 1.4203, 10] },
    ],
    masses: { C: 12.011 },
    spacegroup: 191,
  },
];

export const PSEUDO_ELEMENTS = ['Si', 'Ba', 'Ti', 'O', 'Ga', 'As', 'Na', 'Cl', 'C'];

export const PW_PARAMETERS = [30, 40, 50, 60].flatMap((ecutwfc) =>
  ['scf', 'relax', 'vc-relax'].map((calculation) => ({
    SYSTEM: { nspin: 1, degauss: 0.02, occupations: 'smearing' },
    ecutrho: ecutwfc * 8,
    ecutwfc,
    conv_thr: 1e-8,
    smearing: 'mv',
    calculation,
  })),
);

export const USERS = [
  { id: 1, email: 'alice@example.org', first_name: 'Alice', last_name: 'Anders', institution: 'EPFL' },
  { id: 2, email: 'bob.builder@example.com', first_name: 'Bob', last_name: 'Builder', institution: 'PSI' },
];

export const COMPUTERS = [
  {
    id: 1,
    label: 'localhost',
    hostname: 'localhost',
    description: 'Local workstation',
    scheduler_type: 'core.direct',
    transport_type: 'core.local',
    metadata: {
      shebang: '#!/bin/bash',
      workdir: '/tmp/aiida_run/',
      mpirun_command: ['mpirun', '-np', '{tot_num_mpiprocs}'],
      default_mpiprocs_per_machine: 1,
      prepend_text: '',
      append_text: '',
    },
  },
  {
    id: 2,
    label: 'daint-mc',
    hostname: 'daint.cscs.ch',
    description: 'Piz Daint multicore partition',
    scheduler_type: 'core.slurm',
    transport_type: 'core.ssh',
    metadata: {
      shebang: '#!/bin/bash',
      workdir: '/scratch/snx3000/{username}/aiida/',
      mpirun_command: ['srun', '-n', '{tot_num_mpiprocs}'],
      default_mpiprocs_per_machine: 36,
      default_memory_per_machine: 64000000,
      prepend_text: 'module load intel',
      append_text: '',
    },
  },
];

/** A failed calculation's exit code comes with its message, as aiida-core stores both for a plugin's exit codes. */
export const PROCESS_STATES: { state: string; exit?: number; message?: string; weight: number }[] = [
  { state: 'finished', exit: 0, weight: 80 },
  { state: 'finished', exit: 305, message: 'The stdout output file was incomplete.', weight: 6 },
  { state: 'excepted', weight: 4 },
  { state: 'killed', weight: 3 },
  { state: 'waiting', weight: 5 },
  { state: 'running', weight: 2 },
];
