/**
 * Export versions 0.1 to 0.3 (AiiDA 0.x) -> 0.4, as aiida-core 1.x's migrations did them (v1.6.9,
 * `aiida/tools/importexport/archive/migrations/v01_to_v02.py` ... `v03_to_v04.py`): the provenance redesign,
 * which gave nodes the types of AiiDA 1.0 (`calculation.job.*` -> CalcJobNode with a process type,
 * `code.Code.` -> `data.code.Code.`, ...) and links the types of their ends. 0.1 -> 0.2 only renamed
 * export_data's keys (staging.ts reads both names).
 */

type Rec = Record<string, unknown>;

/**
 * Calculation plugins aiida-core 1.x knew (its registry's list and its own), whose old type strings became
 * `aiida.calculations:<name>` process types; others got the fallback `<module>.<Class>`.
 */
const KNOWN_CALCULATIONS = new Set(
  (
    'arithmetic.add templatereplacer ase.ase castep.bs castep.castep castep.pot1d castep.spec castep.ts ' +
    'codtools.cifcellcontents codtools.cifcodcheck codtools.cifcoddeposit codtools.cifcodnumbers ' +
    'codtools.ciffilter codtools.cifsplitprimitive cp2k crystal17.basic crystal17.immigrant crystal17.main ddec ' +
    'diff dynaphopy gollum.gollum gudhi.rdm kkr.kkr kkr.kkrimp kkr.kkrimporter kkr.voro lammps.combinate ' +
    'lammps.force lammps.md lammps.optimize nwchem.basic nwchem.pymatgen phonopy.phono3py phonopy.phonopy ' +
    'phtools.dmatrix phtools.surface qeq.eqeq qeq.qeq quantumespresso.cp quantumespresso.dos ' +
    'quantumespresso.hp quantumespresso.matdyn quantumespresso.namelists quantumespresso.neb ' +
    'quantumespresso.ph quantumespresso.pp quantumespresso.projwfc quantumespresso.pw ' +
    'quantumespresso.pw2wannier90 quantumespresso.pwimmigrant quantumespresso.q2r raspa siesta.siesta ' +
    'siesta.stm vasp.vasp vasp.vasp2w90 wannier90.wannier90 yambo.yambo zeopp.network'
  ).split(' '),
);

function inferredProcessType(type: string): string {
  const parts = type
    .slice('calculation.job.'.length)
    .split('.')
    .filter((p) => p !== '');
  const cls = parts.pop();
  const name = parts.join('.');
  if (KNOWN_CALCULATIONS.has(name)) return `aiida.calculations:${name}`;
  return name ? `${name}.${cls}` : '';
}

/** Moves `from` to `to` at the end of the record, as Python's `d[to] = d.pop(from)` does. */
function rename(rec: Rec, from: string, to: string): void {
  if (!(from in rec)) return;
  const value = rec[from];
  delete rec[from];
  rec[to] = value;
}

/**
 * A node's record and attributes (and their datetime conversions) at 0.3 -> at 0.4. `rec.type` becomes
 * `rec.node_type`. Extras did not exist: the caller gives every node empty ones.
 */
export function nodeTo04(rec: Rec, attrs: Rec | undefined, conv: Rec | undefined): void {
  let type = typeof rec.type === 'string' ? rec.type : '';
  if (type.startsWith('data.base.')) {
    const rest = type.slice('data.base.'.length);
    type = `data.${rest.toLowerCase()}${rest}`;
  }
  if (!('process_type' in rec)) rec.process_type = '';
  if (type === 'code.Code.') type = 'data.code.Code.';
  if (type === 'calculation.job.simpleplugins.arithmetic.add.ArithmeticAddCalculation.') {
    type = 'calculation.job.arithmetic.add.ArithmeticAddCalculation.';
    rec.process_type = 'aiida.calculations:arithmetic.add';
  } else if (type === 'calculation.job.simpleplugins.templatereplacer.TemplatereplacerCalculation.') {
    type = 'calculation.job.templatereplacer.TemplatereplacerCalculation.';
    rec.process_type = 'aiida.calculations:templatereplacer';
  } else if (type === 'data.code.Code.' && attrs) {
    if (attrs.input_plugin === 'simpleplugins.arithmetic.add') attrs.input_plugin = 'arithmetic.add';
    else if (attrs.input_plugin === 'simpleplugins.templatereplacer') attrs.input_plugin = 'templatereplacer';
  }
  if (type.startsWith('calculation.job.')) rec.process_type = inferredProcessType(type);
  if (type === 'calculation.process.ProcessCalculation.') type = 'calculation.work.WorkCalculation.';
  if (type === 'calculation.work.WorkCalculation.') {
    const fn = attrs?.function_name;
    type =
      fn !== undefined && fn !== null
        ? 'node.process.workflow.workfunction.WorkFunctionNode.'
        : 'node.process.workflow.workchain.WorkChainNode.';
  }
  if (type.startsWith('calculation.job.')) type = 'node.process.calculation.calcjob.CalcJobNode.';
  if (type === 'calculation.inline.InlineCalculation.')
    type = 'node.process.calculation.calcfunction.CalcFunctionNode.';
  if (type === 'calculation.function.FunctionCalculation.')
    type = 'node.process.workflow.workfunction.WorkFunctionNode.';
  for (const content of [attrs, conv]) {
    if (!content) continue;
    if (type === 'node.process.calculation.calcjob.CalcJobNode.') {
      for (const key of Object.keys(content)) {
        if (key === 'custom_environment_variables') rename(content, key, 'environment_variables');
        else if (key === 'jobresource_params') rename(content, key, 'resources');
        else if (key === 'parser') rename(content, key, 'parser_name');
      }
    }
    if (type.startsWith('node.process.')) rename(content, '_process_label', 'process_label');
  }
  if (type.startsWith('data.')) type = type.replace('data.', 'node.data.');
  if (type.startsWith('node.data.')) type = type.replace('node.data.', 'data.');
  else if (type.startsWith('node.process.')) type = type.replace('node.process.', 'process.');
  if (type === 'data.parameter.ParameterData.') type = 'data.dict.Dict.';
  delete rec.type;
  rec.node_type = type;
}

/** What 0.2 -> 0.3 knew of a node to type its links: its kind by its (old) type string. */
type Kind = 'none' | 'calculation' | 'code' | 'data' | 'work';

function kindOf(type: string | null): Kind {
  if (type === null) return 'none';
  if (type.startsWith('calculation.job.') || type.startsWith('calculation.inline.')) return 'calculation';
  if (type.startsWith('code.Code')) return 'code';
  if (type.startsWith('data.')) return 'data';
  if (type.startsWith('calculation.work.')) return 'work';
  return 'none';
}

/** The link type 0.2 -> 0.3 gave a link by the old types of its ends. */
export function linkTypeAt03(inputType: string | null, outputType: string | null): string {
  const input = kindOf(inputType);
  const output = kindOf(outputType);
  if ((input === 'code' || input === 'data') && (output === 'calculation' || output === 'work'))
    return 'inputlink';
  if (input === 'calculation' && output === 'data') return 'createlink';
  if (input === 'work' && output === 'data') return 'returnlink';
  if (input === 'work' && (output === 'calculation' || output === 'work')) return 'calllink';
  return 'unspecified';
}

/**
 * A link at 0.3 -> at 0.4, given the old type of its input and the new type of its output; undefined for the
 * links the provenance redesign deleted (calls and returns out of calculations, creates out of workflows).
 */
export function linkTypeAt04(
  type: string,
  inputOldType: string | null,
  outputNewType: string | null,
): string | undefined {
  const input = inputOldType ?? '';
  const calculation = input.startsWith('calculation.job.') || input.startsWith('calculation.inline.');
  const work = input.startsWith('calculation.function') || input.startsWith('calculation.work');
  if (calculation && (type === 'calllink' || type === 'returnlink')) return undefined;
  if (work && type === 'createlink') return undefined;
  const output = outputNewType ?? '';
  if (type === 'createlink') return 'create';
  if (type === 'returnlink') return 'return';
  if (type === 'inputlink') {
    if (output.startsWith('process.calculation')) return 'input_calc';
    if (output.startsWith('process.workflow')) return 'input_work';
  } else if (type === 'calllink') {
    if (output.startsWith('process.calculation')) return 'call_calc';
    if (output.startsWith('process.workflow')) return 'call_work';
  }
  return type;
}

/** A group at 0.3 -> 0.4: `name` -> `label`, `type` -> `type_string`, and the old type strings renamed. */
export function groupTo04(rec: Rec): void {
  if ('name' in rec) rename(rec, 'name', 'label');
  if ('type' in rec) rename(rec, 'type', 'type_string');
  const old: Record<string, string> = {
    '': 'user',
    'data.upf.family': 'data.upf',
    'aiida.import': 'auto.import',
    'autogroup.run': 'auto.run',
  };
  const t = rec.type_string;
  if (typeof t === 'string' && t in old) rec.type_string = old[t];
}

/** A computer at 0.3 -> 0.4: metadata and transport_params stored as JSON text became JSON. */
export function computerTo04(rec: Rec, parse: (text: string) => unknown): void {
  delete rec.enabled;
  for (const key of ['metadata', 'transport_params']) {
    if (typeof rec[key] === 'string') rec[key] = parse(rec[key]);
  }
}
