/** What every generated archive starts with: users, computers, groups, codes and pseudopotentials. */
import type { GraphBuilder } from './builder.js';
import { COMPUTERS, PSEUDO_ELEMENTS, USERS, type StructureTemplate } from './catalog.js';
import { upfFile } from './files.js';
import type { Rng } from './prng.js';

export interface Shared {
  codes: { pw: number; ph: number; portable: number };
  pseudos: Map<string, number>;
  groups: { structures: number; finished: number; workflows: number; auto: number; imported: number };
}

export const CALCJOB = 'process.calculation.calcjob.CalcJobNode.';
export const WORKCHAIN = 'process.workflow.workchain.WorkChainNode.';
export const CALCFUNCTION = 'process.calculation.calcfunction.CalcFunctionNode.';
export const WORKFUNCTION = 'process.workflow.workfunction.WorkFunctionNode.';

export function setup(b: GraphBuilder, rng: Rng): Shared {
  for (const u of USERS) b.insert('db_dbuser', [u.id, u.email, u.first_name, u.last_name, u.institution]);
  for (const c of COMPUTERS) {
    b.insert('db_dbcomputer', [
      c.id,
      rng.uuid(),
      c.label,
      c.hostname,
      c.description,
      c.scheduler_type,
      c.transport_type,
      JSON.stringify(c.metadata),
    ]);
  }
  const group = (id: number, label: string, type: string, description: string, userId: number) => {
    b.insert('db_dbgroup', [
      id,
      rng.uuid(),
      label,
      type,
      '2019-03-04 10:31:13.783386',
      description,
      '{}',
      userId,
    ]);
    return id;
  };
  const groups = {
    structures: group(1, 'structures/all', 'core', 'all structures', 1),
    finished: group(2, 'calcs/finished-ok', 'core', 'successful calcjobs', 2),
    workflows: group(3, 'workflows', 'core', 'all workflows', 1),
    auto: group(4, 'Verdi autogroup on 2019-03-04 09:15:00', 'core.auto', '', 1),
    imported: group(5, '20210304-imported', 'core.import', '', 2),
  };
  const pseudoGroup = group(6, 'SSSP/1.1/PBE/efficiency', 'core.upf', 'SSSP efficiency pseudopotentials', 1);
  group(7, 'empty group', 'core', 'a group without members', 2);

  const code = (
    nodeType: string,
    label: string,
    computerId: number | null,
    attributes: Record<string, unknown>,
    files?: Record<string, string>,
  ) =>
    b.addNode({ nodeType, label, attributes, files, computerId, userId: 1, description: `${label} code` }).id;
  const base = {
    with_mpi: null,
    append_text: '',
    prepend_text: '',
    use_double_quotes: false,
    wrap_cmdline_params: false,
  };
  const codes = {
    pw: code('data.core.code.installed.InstalledCode.', 'pw-7.2', 2, {
      ...base,
      input_plugin: 'quantumespresso.pw',
      filepath_executable: '/apps/qe/7.2/bin/pw.x',
    }),
    ph: code('data.core.code.installed.InstalledCode.', 'ph-7.2', 2, {
      ...base,
      input_plugin: 'quantumespresso.ph',
      filepath_executable: '/apps/qe/7.2/bin/ph.x',
    }),
    portable: code(
      'data.core.code.portable.PortableCode.',
      'portable-runner',
      null,
      { ...base, input_plugin: 'core.templatereplacer', filepath_executable: 'run.sh' },
      {
        'run.sh': '#!/bin/bash\npython lib/helper.py "$@"\n',
        'lib/helper.py': 'import sys\nprint(sys.argv)\n',
      },
    ),
  };
  const pseudos = new Map<string, number>();
  for (const element of PSEUDO_ELEMENTS) {
    const filename = `${element}.pbe-n-rrkjus_psl.1.0.0.UPF`;
    const content = upfFile(element, 'PBE');
    const id = b.addNode({
      nodeType: 'data.core.upf.UpfData.',
      label: filename,
      attributes: { md5: md5ish(content), element, filename },
      files: { [filename]: content },
      userId: 1,
    }).id;
    pseudos.set(element, id);
    b.addToGroup(pseudoGroup, id);
  }
  return { codes, pseudos, groups };
}

/** A stable stand-in for the md5 attribute (hex of the right length; the content is ours). */
export function md5ish(text: string): string {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
  return h.toString(16).padStart(8, '0').repeat(4);
}

export function structureAttributes(t: StructureTemplate, scale: number) {
  const kinds = [...new Set(t.sites.map((s) => s.symbol))].map((name) => ({
    mass: t.masses[name],
    name,
    symbols: [name],
    weights: [1.0],
  }));
  return {
    cell: t.cell.map((row) => row.map((x) => round(x * scale))),
    pbc1: true,
    pbc2: true,
    pbc3: t.label !== 'graphene',
    kinds,
    sites: t.sites.map((s) => ({ position: s.position.map((x) => round(x * scale)), kind_name: s.symbol })),
  };
}

export const round = (x: number) => Math.round(x * 1e6) / 1e6;
