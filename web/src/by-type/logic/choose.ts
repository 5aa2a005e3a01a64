/** Which by-type view a node gets, from its node_type (and process_type). Pure, so it is tested in node. */

export type ViewKind =
  | 'structure'
  | 'cif'
  | 'bands'
  | 'kpoints'
  | 'trajectory'
  | 'xy'
  | 'array'
  | 'upf'
  | 'value'
  | 'process'
  | 'code'
  | 'remote';

/** Longest prefix first: BandsData and KpointsData are ArrayData too, but have views of their own. */
const BY_PREFIX: Array<[string, ViewKind]> = [
  ['data.core.structure.', 'structure'],
  ['data.core.cif.', 'cif'],
  ['data.core.array.bands.', 'bands'],
  ['data.core.array.kpoints.', 'kpoints'],
  ['data.core.array.trajectory.', 'trajectory'],
  ['data.core.array.xy.', 'xy'],
  ['data.core.array.', 'array'],
  ['data.core.upf.', 'upf'],
  ['data.core.dict.', 'value'],
  ['data.core.list.', 'value'],
  ['data.core.int.', 'value'],
  ['data.core.float.', 'value'],
  ['data.core.str.', 'value'],
  ['data.core.bool.', 'value'],
  ['data.core.code.', 'code'],
  ['data.core.remote.', 'remote'],
  ['process.calculation.calcfunction.', 'process'],
  ['process.calculation.calcjob.', 'process'],
  ['process.workflow.workchain.', 'process'],
  ['process.workflow.workfunction.', 'process'],
];

/**
 * The view for a node type. Plugin subclasses keep the base's prefix only when AiiDA records them under it
 * (e.g. "data.quantumespresso.…" is not "data.core.…"), so those get no special view unless they are processes:
 * every "process." node type gets the process view.
 */
export function viewKind(
  nodeType: string | null | undefined,
  _processType?: string | null,
): ViewKind | undefined {
  if (!nodeType) return undefined;
  // AiiDA 1.x wrote the core data types without "core." (data.array.kpoints.KpointsData.); some archives keep it.
  const type = /^data\.(?!core\.)/.test(nodeType) ? `data.core.${nodeType.slice(5)}` : nodeType;
  const sorted = BY_PREFIX.find(([prefix]) => type.startsWith(prefix));
  if (sorted) return sorted[1];
  if (nodeType.startsWith('process.')) return 'process';
  return undefined;
}

export const isCalcJob = (nodeType: string): boolean => nodeType.startsWith('process.calculation.calcjob.');
