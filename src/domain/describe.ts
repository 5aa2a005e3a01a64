/** A node's one-line description, as aiida's `get_description()` gives it for each node class. */
import { StructureShapeError, structureFormula, structureFromAttributes } from './structure.js';

const CALCJOB_STATES = new Set([
  'uploading',
  'submitting',
  'withscheduler',
  'stashing',
  'unstashing',
  'retrieving',
  'parsing',
]);

export interface Describable {
  node_type: string;
  description: string;
  attributes: Record<string, unknown>;
}

/**
 * The class a node type loads as. Archives converted from AiiDA 1.x keep types such as
 * `data.array.kpoints.KpointsData.`, which aiida maps onto the `core.` entry points.
 */
export function classType(nodeType: string): string {
  if (nodeType.startsWith('data.') && !nodeType.startsWith('data.core.') && nodeType !== 'data.Data.') {
    return `data.core.${nodeType.slice('data.'.length)}`;
  }
  return nodeType;
}

const isNumberList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');

export function describeNode(node: Describable): string {
  const type = classType(node.node_type);
  const a = node.attributes;
  if (type.startsWith('process.calculation.calcjob.')) {
    const state = a.state;
    if (state === undefined || state === null) return '';
    // aiida cannot read states of pre-1.0 calcjobs and falls back to the class name.
    return CALCJOB_STATES.has(String(state)) ? String(state) : (type.split('.').at(-2) ?? '');
  }
  if (type.startsWith('data.core.structure.')) {
    // A malformed structure is described by nothing rather than fail the tree of its neighbours.
    try {
      return structureFormula(structureFromAttributes(a), 'hill_compact');
    } catch (error) {
      if (error instanceof StructureShapeError) return '';
      throw error;
    }
  }
  if (type.startsWith('data.core.code.')) return node.description;
  if (type.startsWith('data.core.array.kpoints.') || type.startsWith('data.core.array.bands.')) {
    const mesh = a.mesh;
    const offset = a.offset ?? [0, 0, 0];
    // A mesh or an offset that is not numbers (not AiiDA's) is described by nothing.
    if (isNumberList(mesh) && isNumberList(offset)) {
      return `Kpoints mesh: ${mesh.join('x')} (+${offset.map((o) => o.toFixed(1)).join(',')})`;
    }
    const shape = a['array|kpoints'] as number[] | undefined;
    return Array.isArray(shape) ? `(Path of ${shape[0]} kpts)` : '';
  }
  return '';
}
